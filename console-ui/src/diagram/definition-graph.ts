/**
 * A definition document (docs/definitions.md) as a graph: one node per state,
 * one edge per way out of it (`next`, a choice, an action, a timeout, an
 * error). The document is read defensively — the page shows what it is
 * given, and a version's body is whatever the engine stored — so anything
 * that is not a known shape is skipped, never thrown on.
 *
 * A `parallel` state's branches are nested state maps; their states become
 * nodes with ids `<parallel>/<branch index>/<state>`, joined to the parallel
 * state by a "branch" edge, so one diagram shows the whole definition.
 */

export interface StateNode {
  /** Unique in the graph: the state's name, or its path inside parallel branches. */
  id: string;
  /** The state's own name, as the definition (and the instance's tasks) call it. */
  name: string;
  type: string;
  start: boolean;
}

export interface Transition {
  id: string;
  source: string;
  target: string;
  /** Why the transition is taken: an action, a choice's condition, "timeout", "error". */
  label: string;
}

export interface DefinitionGraph {
  states: StateNode[];
  transitions: Transition[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The graph of a definition document; empty when the document has no `states`. */
export function definitionGraph(document: unknown): DefinitionGraph {
  const graph: DefinitionGraph = { states: [], transitions: [] };
  if (isObject(document)) addScope(graph, document, "");
  return graph;
}

/** One state map (the definition's, or a branch's) with its `start`. */
function addScope(graph: DefinitionGraph, scope: Json, prefix: string): void {
  const states = isObject(scope.states) ? scope.states : {};
  const start = text(scope.start);
  const idOf = (name: string) => prefix + name;
  for (const [name, state] of Object.entries(states)) {
    const type = isObject(state) ? (text(state.type) ?? "unknown") : "unknown";
    graph.states.push({ id: idOf(name), name, type, start: name === start });
  }
  for (const [name, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    for (const [target, label] of exitsOf(state)) {
      if (target in states) addTransition(graph, idOf(name), idOf(target), label);
    }
    if (Array.isArray(state.branches)) addBranches(graph, state.branches, idOf(name));
  }
}

function addBranches(graph: DefinitionGraph, branches: unknown[], parallelId: string): void {
  branches.forEach((branch, i) => {
    if (!isObject(branch)) return;
    const prefix = `${parallelId}/${i}/`;
    addScope(graph, branch, prefix);
    const start = text(branch.start);
    if (start !== undefined && graph.states.some((s) => s.id === prefix + start)) {
      addTransition(graph, parallelId, prefix + start, `branch ${i + 1}`);
    }
  });
}

/** Two ways from one state to another (a choice's `when` and its `otherwise`) are one arrow with both labels: drawn apart they would lie on each other. */
function addTransition(graph: DefinitionGraph, source: string, target: string, label: string) {
  const same = graph.transitions.find((t) => t.source === source && t.target === target);
  if (same !== undefined) {
    same.label = [same.label, label].filter((l) => l !== "").join(" | ");
    return;
  }
  graph.transitions.push({ id: `${source}->${target}`, source, target, label });
}

/** [target state, label] of every way out of one state. */
function exitsOf(state: Json): [string, string][] {
  const exits: [string, string][] = [];
  const add = (target: unknown, label: string) => {
    const t = text(target);
    if (t !== undefined) exits.push([t, label]);
  };
  if (Array.isArray(state.choices)) {
    for (const c of state.choices) if (isObject(c)) add(c.next, text(c.when) ?? "when");
  }
  add(state.otherwise, "otherwise");
  if (isObject(state.actions)) {
    for (const [action, a] of Object.entries(state.actions)) if (isObject(a)) add(a.next, action);
  }
  add(state.next, "");
  add(state.onTimeout, "timeout");
  add(state.onError, "error");
  return exits;
}
