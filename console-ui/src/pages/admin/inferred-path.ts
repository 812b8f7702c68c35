/**
 * The states an instance went through without leaving a trace in the
 * instance answer: only `userTask` states make referrals, so a choice, a
 * call or a timer between two of them is inferred from the graph — when the
 * way from one entered state to the next runs through such states along
 * exactly one path. Two possible paths (a choice whose branches meet again):
 * nothing is inferred, rather than a guess.
 */
import type { DefinitionGraph } from "../../diagram/definition-graph.ts";

/** States that run without a referral and go on by themselves. */
const SILENT = new Set(["choice", "call", "timer", "waitSignal", "respond", "subProcess"]);
const TERMINAL = new Set(["end", "terminate"]);

/**
 * Ids of the states passed between the entered ones (`entered`: top-level
 * state names, oldest first), from the start, and — when the process is
 * over — from the last entered state to its end.
 */
export function inferredStates(
  graph: DefinitionGraph,
  entered: readonly string[],
  finished: boolean,
): Set<string> {
  const byId = new Map(graph.states.map((s) => [s.id, s]));
  const start = graph.states.find((s) => s.start && !s.id.includes("/"));
  const found = new Set<string>();
  const stops = [...entered];
  if (start !== undefined && stops[0] !== start.id) stops.unshift(start.id);
  if (start !== undefined && stops[0] === start.id && SILENT.has(start.type)) found.add(start.id);
  const addPath = (path: string[] | undefined) => path?.forEach((id) => found.add(id));
  for (let i = 0; i + 1 < stops.length; i++) {
    addPath(onlyPath(graph, byId, stops[i]!, (id) => id === stops[i + 1]));
  }
  const last = stops.at(-1);
  if (finished && last !== undefined) {
    const path = onlyPath(graph, byId, last, (id) => TERMINAL.has(byId.get(id)?.type ?? ""));
    addPath(path);
    const end = path === undefined ? undefined : endOf(graph, byId, last, path);
    if (end !== undefined) found.add(end);
  }
  return found;
}

type States = Map<string, DefinitionGraph["states"][number]>;

/** The silent states between `from` and a target, when exactly one path leads there. */
function onlyPath(
  graph: DefinitionGraph,
  byId: States,
  from: string,
  isTarget: (id: string) => boolean,
): string[] | undefined {
  const paths: string[][] = [];
  const walk = (at: string, path: string[]) => {
    if (paths.length > 1 || path.length > 50) return;
    for (const t of graph.transitions.filter((x) => x.source === at)) {
      if (isTarget(t.target)) paths.push(path);
      else if (SILENT.has(byId.get(t.target)?.type ?? "") && !path.includes(t.target)) {
        walk(t.target, [...path, t.target]);
      }
    }
  };
  walk(from, []);
  return paths.length === 1 ? paths[0] : undefined;
}

/** The terminal state the only path ends in. */
function endOf(graph: DefinitionGraph, byId: States, from: string, path: string[]) {
  const lastStep = path.at(-1) ?? from;
  return graph.transitions
    .filter((t) => t.source === lastStep)
    .map((t) => t.target)
    .find((id) => TERMINAL.has(byId.get(id)?.type ?? ""));
}
