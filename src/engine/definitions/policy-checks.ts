/**
 * Rules between the fields of one state that a JSON Schema says badly or not
 * at all: a userTask must say where it goes; an `atLeast` cannot ask for more
 * tasks or branches than there are; an `onTimeout` needs a `timeout`.
 */
import type { FieldError } from "../../domain/errors.ts";
import { scopesOf, type StateRef } from "./definition-scopes.ts";
import { isRecord, pointer } from "./json-pointer.ts";

export function policyErrors(doc: unknown): FieldError[] {
  const errors: FieldError[] = [];
  for (const scope of scopesOf(doc)) for (const s of scope.states) check(s, errors);
  return errors;
}

function check(s: StateRef, errors: FieldError[]): void {
  const st = s.state;
  if (s.type === "userTask") {
    if (st["next"] === undefined && st["actions"] === undefined) {
      errors.push({ pointer: s.at, reason: "needs `next` or `actions`: where to go once done" });
    }
    const most = literalTaskCount(st["assignee"]);
    atMost(st["completion"], most, pointer(s.at, "completion", "atLeast"), "tasks", errors);
  }
  if (s.type === "parallel" && Array.isArray(st["branches"])) {
    const n = st["branches"].length;
    atMost(st["join"], n, pointer(s.at, "join", "atLeast"), "branches", errors);
  }
  if (s.type === "waitSignal" && st["onTimeout"] !== undefined && st["timeout"] === undefined) {
    errors.push({ pointer: pointer(s.at, "onTimeout"), reason: "needs a `timeout`" });
  }
}

/** Tasks a literal assignee makes; undefined when only a run can tell (a group, an expression). */
function literalTaskCount(assignee: unknown): number | undefined {
  if (!isRecord(assignee)) return undefined;
  if (typeof assignee["user"] === "string") return 1;
  if (Array.isArray(assignee["users"])) return assignee["users"].length;
  return undefined;
}

function atMost(
  policy: unknown,
  most: number | undefined,
  at: string,
  what: string,
  errors: FieldError[],
): void {
  if (most === undefined || !isRecord(policy)) return;
  const n = policy["atLeast"];
  if (typeof n === "number" && n > most) {
    errors.push({
      pointer: at,
      reason: `asks for ${n} but there ${most === 1 ? "is 1" : `are ${most}`} ${what}`,
    });
  }
}
