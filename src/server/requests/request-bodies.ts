/**
 * Request bodies → engine requests. Only known fields are copied: unknown
 * fields are ignored (docs/api.md), and an `onAllCompleted` is stored as given,
 * so nothing a caller adds by mistake ends up persisted.
 */
import type { AssigneeRequest } from "../../domain/assignee.ts";
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import type { Vars } from "../../domain/vars.ts";

export interface NextAssignmentBody {
  definitionKey?: string;
  assignee: AssigneeBody;
  vars?: Vars;
  onAllCompleted?: NextAssignmentBody;
}

export interface AssigneeBody {
  kind: "user" | "group" | "users";
  id?: string;
  ids?: string[];
}

export interface AssignmentBody extends NextAssignmentBody {
  parentInstanceId?: string;
}

export function toAssignee(a: AssigneeBody): AssigneeRequest {
  // The schema guarantees `id` for user/group and `ids` for users.
  return a.kind === "users"
    ? { kind: "users", ids: a.ids ?? [] }
    : { kind: a.kind, id: a.id ?? "" };
}

export function toNextAssignment(b: NextAssignmentBody): NextAssignment {
  return {
    ...(b.definitionKey !== undefined && { definitionKey: b.definitionKey }),
    assignee: toAssignee(b.assignee),
    ...(b.vars !== undefined && { vars: b.vars }),
    ...(b.onAllCompleted !== undefined && { onAllCompleted: toNextAssignment(b.onAllCompleted) }),
  };
}

export function toAssignmentRequest(b: AssignmentBody): AssignmentRequest {
  return {
    ...toNextAssignment(b),
    ...(b.parentInstanceId !== undefined && { parentInstanceId: b.parentInstanceId }),
  };
}
