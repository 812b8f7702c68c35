import { taskflowError } from "../../domain/errors.ts";
import {
  assertClaimable,
  assertMayClaim,
  assertMayRelease,
  assertReleasable,
  type Task,
} from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import { assertKnownUser, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { assertNotExcluded } from "./four-eyes.ts";

/** As in complete.ts: re-reads of a task that changed between the read and the write. */
const MAX_ATTEMPTS = 5;

/**
 * Claim is one conditional write (`… WHERE status = 'open'`): of N members
 * claiming at once exactly one changes the row, the others get NotOpen. The
 * checks before it read only fields that never change after creation. In
 * the order of every use case: the task's state, then the actor.
 */
export async function claim(deps: HumanTaskDeps, ctx: ActorContext, taskId: string): Promise<Task> {
  requireId("task id", taskId);
  const task = await deps.store.getTask(ctx.tenantId, taskId);
  if (!task) throw taskflowError("TaskNotFound", { taskId });
  assertClaimable(task);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  assertMayClaim(task, ctx.actorId, (g) => deps.directory.isMember(ctx.actorId, g));
  await assertNotExcluded(deps, ctx.tenantId, task, ctx.actorId);
  const now = deps.clock.now();
  const patch = { status: "claimed" as const, claimedBy: ctx.actorId, claimedAt: now };
  const won = await deps.store.claim({
    tenantId: ctx.tenantId,
    taskId,
    claimedBy: ctx.actorId,
    claimedAt: now,
  });
  if (won) return { ...task, ...patch };
  // Lost the race: the detail names the task's state as it now stands, as it does for a claim
  // that reads after the winner wrote — which one a request gets must not depend on timing
  // (two nodes, or concurrent requests on PostgreSQL/MariaDB, read before either writes).
  const after = await deps.store.getTask(ctx.tenantId, taskId);
  if (after && after.status !== "open")
    throw after.status === "claimed"
      ? taskflowError("TaskAlreadyClaimed", { taskId })
      : taskflowError("TaskNotOpen", { taskId, status: after.status });
  throw taskflowError("TaskNoLongerOpen", { taskId });
}

/**
 * Release: only the claimer, only while claimed. The write is conditional on
 * both; when it finds the task changed since the read, the task is read and
 * checked again, so the error is the one the task as it now stands deserves.
 */
export async function release(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
): Promise<Task> {
  requireId("task id", taskId);
  for (let attempt = 1; ; attempt++) {
    const task = await deps.store.getTask(ctx.tenantId, taskId);
    if (!task) throw taskflowError("TaskNotFound", { taskId });
    assertReleasable(task);
    assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
    assertMayRelease(task, ctx.actorId);
    const cmd = { tenantId: ctx.tenantId, taskId, claimedBy: ctx.actorId, at: deps.clock.now() };
    if (await deps.store.release(cmd))
      return { ...task, status: "open", claimedBy: null, claimedAt: null };
    if (attempt === MAX_ATTEMPTS) throw taskflowError("TaskNoLongerClaimed", { taskId });
  }
}
