/** A definition's assignee (literal or `{ expr }`) as the inbox's AssigneeRequest. */
import type { AssigneeRequest } from "../../../domain/assignee.ts";
import type { Assignee } from "../definition-language.ts";
import type { InterpretedRun } from "./run-context.ts";

export async function resolveAssignee(
  run: InterpretedRun,
  a: Assignee,
  at: string,
): Promise<AssigneeRequest> {
  return toRequest(await run.valueOf(a), at);
}

/** `{ user }`, `{ group }`, `{ users }` or a bare user id (what an expression may give). */
export function toRequest(v: unknown, at: string): AssigneeRequest {
  if (typeof v === "string" && v !== "") return { kind: "user", id: v };
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    if (typeof o["user"] === "string") return { kind: "user", id: o["user"] };
    if (typeof o["group"] === "string") return { kind: "group", id: o["group"] };
    if (Array.isArray(o["users"]) && o["users"].every((u) => typeof u === "string")) {
      return { kind: "users", ids: o["users"] };
    }
  }
  throw new Error(
    `${at}: the assignee ${JSON.stringify(v)} is not a user id, { user }, { group } or { users }`,
  );
}

/** Both assignees' tasks where one referral can hold them (users); else the added one's. */
export function withAdded(base: AssigneeRequest, added: AssigneeRequest): AssigneeRequest {
  const ids = (a: AssigneeRequest) =>
    a.kind === "users" ? a.ids : a.kind === "user" ? [a.id] : null;
  const a = ids(base);
  const b = ids(added);
  if (a !== null && b !== null) return { kind: "users", ids: [...new Set([...a, ...b])] };
  return added;
}
