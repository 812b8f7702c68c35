/** Who a task is for. A request may name several users; a stored task names one user or one group. */
export type AssigneeRequest =
  { kind: "user"; id: string } | { kind: "group"; id: string } | { kind: "users"; ids: string[] };

export type AssigneeKind = "user" | "group";

export interface TaskAssignee {
  kind: AssigneeKind;
  id: string;
}

/** One task per id: a `users` request fans out into user tasks under one referral. */
export function expandAssignee(a: AssigneeRequest): TaskAssignee[] {
  if (a.kind === "users") return [...new Set(a.ids)].map((id) => ({ kind: "user", id }));
  return [{ kind: a.kind, id: a.id }];
}
