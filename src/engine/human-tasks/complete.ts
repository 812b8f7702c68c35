import type { NextAssignment } from "../../domain/assignment.ts";
import { completionOf } from "../../domain/completion.ts";
import { notFound, notOpen } from "../../domain/errors.ts";
import { assertCanComplete, type Task } from "../../domain/task.ts";
import type { Vars } from "../../domain/vars.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult, CompleteAndEndResult, CompleteResult } from "../human-task-api.ts";
import type { StoreTx } from "../ports.ts";
import { assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { performAssignment } from "./perform-assignment.ts";

/**
 * Complete a task, then — if that finished its referral — perform the parallel
 * join, all in one transaction.
 *
 * Why the root row lock: two last tasks completing at the same moment in two
 * transactions would each count the other as still open (neither sees the
 * other's uncommitted write) and the join would never fire. Locking the root
 * first serialises completions within one process tree, so the second one
 * counts after the first has committed. `markJoined` (a conditional write on
 * joined_at) then makes the join happen at most once even if that ever changed.
 */
export async function complete(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: { vars?: Vars | undefined; next?: NextAssignment | undefined },
): Promise<CompleteResult> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  assertNextChain(deps.directory, req.next);
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const task = await finishTask(tx, ctx, taskId, req.vars, now);
    const counts = await tx.countTasksByStatus(ctx.tenantId, task.instanceId);
    const completion = completionOf(task.instanceId, counts);
    const joined = completion.allCompleted
      ? await closeReferral(tx, ctx.tenantId, task.instanceId, now)
      : null;
    const explicit = req.next
      ? await performAssignment(
          tx,
          ctx,
          {
            ...req.next,
            parentInstanceId: task.rootInstanceId,
            definitionKey: req.next.definitionKey ?? task.definitionKey,
          },
          now,
        )
      : null;
    return { task, completion, next: explicit ?? joined, joined };
  });
}

/** 002 §4.5: complete this task, cancel every other open task of the tree, close the tree. */
export async function completeAndEnd(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: { vars?: Vars | undefined },
): Promise<CompleteAndEndResult> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const task = await finishTask(tx, ctx, taskId, req.vars, now);
    const cancelled = await tx.cancelOpenTasksOfRoot(
      ctx.tenantId,
      task.rootInstanceId,
      task.id,
      now,
    );
    await tx.completeTree(ctx.tenantId, task.rootInstanceId, now);
    return { task, cancelled, rootInstanceId: task.rootInstanceId };
  });
}

/** Lock order everywhere: root instance, then task. */
async function finishTask(
  tx: StoreTx,
  ctx: ActorContext,
  taskId: string,
  vars: Vars | undefined,
  now: number,
): Promise<Task> {
  if (!(await tx.lockRootOf(ctx.tenantId, { taskId }))) throw notFound("task", taskId);
  const task = await tx.lockTask(ctx.tenantId, taskId);
  if (!task) throw notFound("task", taskId);
  assertCanComplete(task, ctx.actorId);
  const patch = {
    status: "done" as const,
    completedBy: ctx.actorId,
    completedAt: now,
    vars: vars ?? null,
  };
  if (!(await tx.updateTask(ctx.tenantId, taskId, [task.status], patch))) {
    throw notOpen(`task '${taskId}' is no longer open`);
  }
  return { ...task, ...patch };
}

/** The referral is finished: mark it completed and, once only, perform its onAllCompleted. */
async function closeReferral(
  tx: StoreTx,
  tenantId: string,
  referralId: string,
  now: number,
): Promise<AssignResult | null> {
  await tx.completeInstance(tenantId, referralId, now);
  const referral = await tx.getInstance(tenantId, referralId);
  const next = referral?.onAllCompleted;
  if (!referral || !next || !(await tx.markJoined(tenantId, referralId, now))) return null;
  // The join acts for whoever set it up: the actor of the assignment that carried onAllCompleted.
  const actor = { tenantId, actorId: referral.startedBy };
  return performAssignment(
    tx,
    actor,
    {
      ...next,
      definitionKey: next.definitionKey ?? referral.definitionKey,
      parentInstanceId: referral.rootInstanceId,
    },
    now,
  );
}
