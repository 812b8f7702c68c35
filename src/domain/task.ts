import type { AssigneeKind, TaskAssignee } from "./assignee.ts";
import { conflict, forbidden, notOpen } from "./errors.ts";
import type { Vars } from "./vars.ts";

export type TaskStatus = "open" | "claimed" | "done" | "cancelled";
export const TaskStatuses: readonly TaskStatus[] = ["open", "claimed", "done", "cancelled"];

export interface Task {
  id: string;
  tenantId: string;
  instanceId: string;
  rootInstanceId: string;
  definitionKey: string;
  assigneeKind: AssigneeKind;
  assigneeId: string;
  assignedBy: string;
  status: TaskStatus;
  claimedBy: string | null;
  claimedAt: number | null;
  completedBy: string | null;
  completedAt: number | null;
  /** The variables the completing actor handed in. */
  vars: Vars | null;
  createdAt: number;
}

/** A task as an assignment creates it: open, nobody has claimed or completed it. */
export function openTask(
  t: Pick<
    Task,
    | "id"
    | "tenantId"
    | "instanceId"
    | "rootInstanceId"
    | "definitionKey"
    | "assigneeKind"
    | "assigneeId"
    | "assignedBy"
    | "createdAt"
  >,
): Task {
  return {
    ...t,
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
  };
}

export const assigneeOf = (t: Task): TaskAssignee => ({ kind: t.assigneeKind, id: t.assigneeId });

export const isFinished = (s: TaskStatus) => s === "done" || s === "cancelled";

/**
 * Claim rules: a group task is claimed by a member; a user task
 * by its assignee (marking it as being worked on). Only an open task is claimed —
 * also by its own claimer, which is 409 NotOpen.
 */
export function assertCanClaim(t: Task, actor: string, isMember: (group: string) => boolean) {
  if (t.assigneeKind === "group" ? !isMember(t.assigneeId) : t.assigneeId !== actor) {
    throw forbidden(`actor '${actor}' may not claim task '${t.id}'`);
  }
  if (t.status !== "open") throw notOpen(`task '${t.id}' is ${t.status}, not open`);
}

export function assertCanRelease(t: Task, actor: string) {
  if (t.status !== "claimed") throw notOpen(`task '${t.id}' is ${t.status}, not claimed`);
  if (t.claimedBy !== actor) throw forbidden(`only the claimer may release task '${t.id}'`);
}

/**
 * Completion rules: a user task only by its assignee; a group task only by its
 * claimer. A finished task is NotOpen for everyone, so of N racing completions
 * exactly one succeeds and the rest see 409 NotOpen.
 */
export function assertCanComplete(t: Task, actor: string) {
  if (t.assigneeKind === "user") {
    if (t.assigneeId !== actor) throw forbidden(`task '${t.id}' is assigned to another user`);
    if (isFinished(t.status)) throw notOpen(`task '${t.id}' is ${t.status}`);
    return;
  }
  if (isFinished(t.status)) throw notOpen(`task '${t.id}' is ${t.status}`);
  if (t.status === "open")
    throw conflict(`group task '${t.id}' must be claimed before it is completed`);
  if (t.claimedBy !== actor) throw forbidden(`task '${t.id}' is claimed by another user`);
}
