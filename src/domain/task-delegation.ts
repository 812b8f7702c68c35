/**
 * Handing a task to someone else, as Camunda 7 and Flowable do it:
 *
 * - **delegate**: whoever holds the task (a user task's assignee, a claimed
 *   group task's claimer) hands it to a user, who does the work and
 *   **resolves** it; it then comes back to its owner (the holder who
 *   delegated) to complete. While the delegation is pending nobody completes
 *   it: the delegate resolves, the owner completes after.
 * - **reassign**: whoever holds it, its owner, or whoever assigned it gives it
 *   to another user or group; any delegation ends and it is open again.
 *
 * These are rules on the task as read; the use cases (engine/human-tasks/
 * task-handover.ts) check them in the order of every use case — the task's
 * state, then the actor — and the store writes only while the task is still
 * as read.
 */
import type { AssigneeKind } from "./assignee.ts";
import { taskflowError } from "./errors.ts";
import { isFinished, type Task } from "./task.ts";

export type Delegation = "pending" | "resolved";

/** Who holds the task now: a user task's assignee, a claimed group task's claimer. */
export function holderOf(
  t: Pick<Task, "assigneeKind" | "assigneeId" | "claimedBy">,
): string | null {
  if (t.assigneeKind === "user") return t.assigneeId;
  return t.claimedBy;
}

function assertLive(t: Task) {
  if (isFinished(t.status)) throw taskflowError("TaskFinished", { taskId: t.id, status: t.status });
}

export function assertCanDelegate(t: Task, actor: string, to: string) {
  assertLive(t);
  if (t.delegation === "pending")
    throw taskflowError("DelegationPending", { taskId: t.id, delegate: t.assigneeId });
  if (holderOf(t) !== actor) throw taskflowError("NotHolder", { taskId: t.id, actorId: actor });
  if (to === actor)
    throw taskflowError("InvalidArgument", { detail: "to: a task is delegated to someone else" });
}

export function assertCanResolve(t: Task, actor: string) {
  assertLive(t);
  if (t.delegation !== "pending") throw taskflowError("NotDelegated", { taskId: t.id });
  if (t.assigneeId !== actor) throw taskflowError("NotDelegate", { taskId: t.id, actorId: actor });
}

export function assertCanReassign(t: Task, actor: string) {
  assertLive(t);
  if (holderOf(t) !== actor && t.owner !== actor && t.assignedBy !== actor)
    throw taskflowError("MayNotReassign", { taskId: t.id, actorId: actor });
}

/** A completion waits for a pending delegation to be resolved. */
export function assertNotDelegated(t: Pick<Task, "id" | "delegation" | "assigneeId">) {
  if (t.delegation === "pending")
    throw taskflowError("DelegationPending", { taskId: t.id, delegate: t.assigneeId });
}

/** What a handover writes: the new assignee, open and unclaimed. */
export interface Handover {
  assigneeKind: AssigneeKind;
  assigneeId: string;
  owner: string | null;
  delegation: Delegation | null;
}
