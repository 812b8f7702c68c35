/**
 * The state graphs of a definition, read defensively: the top level is one
 * scope (its `start` and `states`), and each branch of a `parallel` state is
 * another, nested. The checks after the schema run on whatever shape the
 * document has, so that one call reports every finding; anything malformed
 * is skipped here (the schema check already names it).
 */
import { isRecord, pointer } from "./json-pointer.ts";

export interface StateRef {
  name: string;
  /** The state object (a record; other values are skipped). */
  state: Record<string, unknown>;
  type: string | undefined;
  /** Pointer to the state object. */
  at: string;
}

export interface Scope {
  /** Pointer to the object holding `start` and `states` ("" at the top). */
  at: string;
  start: unknown;
  states: StateRef[];
}

/** Every scope, the top one first, branches depth first. */
export function scopesOf(doc: unknown): Scope[] {
  const out: Scope[] = [];
  collect(doc, "", out, 0);
  return out;
}

/** Branches nest; a hostile document could nest them deeply. */
const MAX_SCOPE_DEPTH = 32;

function collect(holder: unknown, at: string, out: Scope[], depth: number): void {
  if (!isRecord(holder) || depth > MAX_SCOPE_DEPTH) return;
  const states: StateRef[] = [];
  const raw = holder["states"];
  if (isRecord(raw)) {
    for (const [name, state] of Object.entries(raw)) {
      if (!isRecord(state)) continue;
      const type = typeof state["type"] === "string" ? state["type"] : undefined;
      states.push({ name, state, type, at: pointer(at, "states", name) });
    }
  }
  out.push({ at, start: holder["start"], states });
  for (const s of states) {
    if (s.type !== "parallel" || !Array.isArray(s.state["branches"])) continue;
    s.state["branches"].forEach((b, i) => collect(b, pointer(s.at, "branches", i), out, depth + 1));
  }
}

export interface Edge {
  /** Pointer to the field naming the target. */
  at: string;
  target: string;
}

/** The transitions out of a state: every field that names a state of its scope. */
export function edgesOf(s: StateRef): Edge[] {
  const edges: Edge[] = [];
  const add = (value: unknown, ...path: (string | number)[]) => {
    if (typeof value === "string") edges.push({ at: pointer(s.at, ...path), target: value });
  };
  const st = s.state;
  switch (s.type) {
    case "userTask":
      if (isRecord(st["actions"])) {
        for (const [name, a] of Object.entries(st["actions"])) {
          if (isRecord(a)) add(a["next"], "actions", name, "next");
        }
      }
      add(st["next"], "next");
      break;
    case "choice":
      if (Array.isArray(st["choices"])) {
        st["choices"].forEach((c, i) => {
          if (isRecord(c)) add(c["next"], "choices", i, "next");
        });
      }
      add(st["otherwise"], "otherwise");
      break;
    case "waitSignal":
      add(st["next"], "next");
      add(st["onTimeout"], "onTimeout");
      break;
    case "call":
      add(st["next"], "next");
      add(st["onError"], "onError");
      break;
    case "end":
    case "terminate":
      break;
    default:
      add(st["next"], "next");
  }
  return edges;
}
