/**
 * Request bodies → engine requests. Only known fields are copied: unknown
 * fields are ignored (docs/api.md), and an `onAllCompleted` is stored as given,
 * so nothing a caller adds by mistake ends up persisted.
 */
import type { AssigneeRequest } from "../../domain/assignee.ts";
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import type { TaskDetailsRequest } from "../../domain/task-details.ts";
import type { TaskFormRequest } from "../../domain/task-form.ts";
import type { Vars } from "../../domain/vars.ts";

export interface NextAssignmentBody {
  definitionKey?: string;
  assignee: AssigneeBody;
  vars?: Vars;
  title?: string;
  description?: string;
  priority?: number;
  dueAt?: string;
  followUpAt?: string;
  form?: TaskFormRequest["form"];
  formUi?: TaskFormRequest["formUi"];
  actions?: TaskFormRequest["actions"];
  actionRequired?: boolean;
  exclude?: TaskDetailsRequest["exclude"];
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
    ...detailsOf(b),
    ...(b.onAllCompleted !== undefined && { onAllCompleted: toNextAssignment(b.onAllCompleted) }),
  };
}

/** The task details given (stored in an onAllCompleted as given, so only those). */
function detailsOf(b: NextAssignmentBody): TaskDetailsRequest {
  const out: TaskDetailsRequest = {};
  if (b.title !== undefined) out.title = b.title;
  if (b.description !== undefined) out.description = b.description;
  if (b.priority !== undefined) out.priority = b.priority;
  if (b.dueAt !== undefined) out.dueAt = b.dueAt;
  if (b.followUpAt !== undefined) out.followUpAt = b.followUpAt;
  if (b.form !== undefined) out.form = b.form;
  if (b.formUi !== undefined) out.formUi = b.formUi;
  if (b.actions !== undefined) out.actions = b.actions;
  if (b.actionRequired !== undefined) out.actionRequired = b.actionRequired;
  if (b.exclude !== undefined) out.exclude = b.exclude;
  return out;
}

export function toAssignmentRequest(b: AssignmentBody): AssignmentRequest {
  return {
    ...toNextAssignment(b),
    ...(b.parentInstanceId !== undefined && { parentInstanceId: b.parentInstanceId }),
  };
}
