/**
 * The state graph of each scope: `start` and every `next` name a state of the
 * same scope (a branch cannot jump out of its branch, nor the top level into
 * one); every state is reachable from `start`; and every loop passes through a
 * state that waits for the world (a person, the clock, a signal, a child) —
 * a cycle of only choice/call/respond states would spin without end.
 */
import type { FieldError } from "../../domain/errors.ts";
import { WAITING_TYPES } from "./definition-language.ts";
import { MAX_STATES } from "./definition-schema.ts";
import { edgesOf, scopesOf, type Scope, type StateRef } from "./definition-scopes.ts";
import { pointer } from "./json-pointer.ts";

export function graphErrors(doc: unknown): FieldError[] {
  return scopesOf(doc).flatMap(scopeErrors);
}

function scopeErrors(scope: Scope): FieldError[] {
  // The schema refuses more; a graph that large is not walked (the cycle search recurses).
  if (scope.states.length > MAX_STATES) return [];
  const errors: FieldError[] = [];
  const byName = new Map(scope.states.map((s) => [s.name, s]));
  const where = scope.at === "" ? "" : " of this branch";
  if (typeof scope.start === "string" && !byName.has(scope.start)) {
    errors.push({
      pointer: pointer(scope.at, "start"),
      reason: `names no state${where}: '${scope.start}'`,
    });
  }
  const successors = new Map<string, string[]>();
  for (const s of scope.states) {
    const next: string[] = [];
    for (const e of edgesOf(s)) {
      if (byName.has(e.target)) next.push(e.target);
      else errors.push({ pointer: e.at, reason: `names no state${where}: '${e.target}'` });
    }
    successors.set(s.name, next);
  }
  if (typeof scope.start === "string" && byName.has(scope.start)) {
    const reached = reachable(scope.start, successors);
    for (const s of scope.states) {
      if (!reached.has(s.name)) {
        errors.push({ pointer: s.at, reason: `is unreachable from start '${scope.start}'` });
      }
    }
  }
  for (const cycle of cycles(scope.states, successors)) {
    if (cycle.some((s) => waits(s))) continue;
    const names = cycle.map((s) => s.name);
    errors.push({
      pointer: cycle[0]!.at,
      reason:
        `is on a loop through ${names.join(", ")} with no waiting state: ` +
        "it would spin; put a userTask, timer, waitSignal or subProcess on it",
    });
  }
  return errors;
}

function reachable(start: string, successors: Map<string, string[]>): Set<string> {
  const seen = new Set([start]);
  const todo = [start];
  for (let n = todo.pop(); n !== undefined; n = todo.pop()) {
    for (const m of successors.get(n) ?? []) {
      if (!seen.has(m)) {
        seen.add(m);
        todo.push(m);
      }
    }
  }
  return seen;
}

/** A parallel state waits when one of its branches holds a waiting state. */
function waits(s: StateRef): boolean {
  if (s.type !== undefined && WAITING_TYPES.has(s.type)) return true;
  if (s.type !== "parallel") return false;
  return scopesOf({ states: { [s.name]: s.state } })
    .slice(1)
    .some((b) => b.states.some((x) => x.type !== undefined && WAITING_TYPES.has(x.type)));
}

/**
 * The cycles of the graph as its strongly connected components (Tarjan) with
 * more than one state or a state that leads to itself, each in declaration order.
 */
function cycles(states: StateRef[], successors: Map<string, string[]>): StateRef[][] {
  const order = new Map(states.map((s, i) => [s.name, i]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: StateRef[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of successors.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    const selfLoop = (successors.get(v) ?? []).includes(v);
    if (component.length > 1 || selfLoop) {
      component.sort((a, b) => order.get(a)! - order.get(b)!);
      out.push(component.map((n) => states[order.get(n)!]!));
    }
  };
  for (const s of states) if (!index.has(s.name)) visit(s.name);
  return out;
}
