import type { AssigneeKind, TaskAssignee } from "./assignee.ts";
import { taskflowError } from "./errors.ts";
import type { TaskDetails } from "./task-details.ts";
import type { Vars } from "./vars.ts";
import type { Delegation } from "./task-delegation.ts";

export type TaskStatus = "open" | "claimed" | "done" | "cancelled";
export const TaskStatuses: readonly TaskStatus[] = ["open", "claimed", "done", "cancelled"];

export interface Task extends TaskDetails {
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
  /** The named action the completion chose (one of `actions`), if any. */
  action: string | null;
  /** The completion's comment, if any. */
  comment: string | null;
  /** Whom a delegated task goes back to once resolved (task-delegation.ts). */
  owner: string | null;
  delegation: Delegation | null;
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
  > &
    TaskDetails,
): Task {
  return {
    ...t,
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
    action: null,
    comment: null,
    owner: null,
    delegation: null,
  };
}

export const assigneeOf = (t: Task): TaskAssignee => ({ kind: t.assigneeKind, id: t.assigneeId });

export const isFinished = (s: TaskStatus) => s === "done" || s === "cancelled";

/*
 * Each use case checks in one order — the task's state, then the actor's
 * permission, then the request's input — so an answer never depends on which
 * check a caller happened to pass first: a finished task is 409 NotOpen for
 * everyone, stranger or not, before anything about the actor or the form.
 * Hence each rule comes in two halves the use cases call around the
 * directory's check of the actor.
 */

/**
 * Claim rules: only an open task is claimed — also by its own claimer, which
 * is 409 NotOpen; a group task by a member, a user task by its assignee
 * (marking it as being worked on).
 */
export function assertClaimable(t: Task) {
  if (t.status === "claimed") throw taskflowError("TaskAlreadyClaimed", { taskId: t.id });
  if (t.status !== "open") throw taskflowError("TaskNotOpen", { taskId: t.id, status: t.status });
}

export function assertMayClaim(t: Task, actor: string, isMember: (group: string) => boolean) {
  if (t.assigneeKind === "group" ? !isMember(t.assigneeId) : t.assigneeId !== actor) {
    throw taskflowError("ClaimNotPermitted", { actorId: actor, taskId: t.id });
  }
}

export function assertCanClaim(t: Task, actor: string, isMember: (group: string) => boolean) {
  assertClaimable(t);
  assertMayClaim(t, actor, isMember);
}

export function assertReleasable(t: Task) {
  if (t.status !== "claimed")
    throw taskflowError("TaskNotClaimedForRelease", { taskId: t.id, status: t.status });
}

export function assertMayRelease(t: Task, actor: string) {
  if (t.claimedBy !== actor) throw taskflowError("NotClaimer", { taskId: t.id });
}

export function assertCanRelease(t: Task, actor: string) {
  assertReleasable(t);
  assertMayRelease(t, actor);
}

/**
 * Completion rules: a finished task is NotOpen for everyone, so of N racing
 * completions exactly one succeeds and the rest see 409 NotOpen; a group task
 * is claimed first (409 Conflict). Then a user task only by its assignee, a
 * group task only by its claimer.
 */
export function assertCompletable(t: Task) {
  if (isFinished(t.status)) throw taskflowError("TaskFinished", { taskId: t.id, status: t.status });
  if (t.assigneeKind !== "user" && t.status === "open")
    throw taskflowError("TaskNotClaimed", { taskId: t.id });
}

export function assertMayComplete(t: Task, actor: string) {
  if (t.assigneeKind === "user") {
    if (t.assigneeId !== actor) throw taskflowError("AssignedToOther", { taskId: t.id });
    return;
  }
  if (t.claimedBy !== actor) throw taskflowError("ClaimedByOther", { taskId: t.id });
}

export function assertCanComplete(t: Task, actor: string) {
  assertCompletable(t);
  assertMayComplete(t, actor);
}
