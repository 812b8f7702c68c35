import { notFound, notOpen } from "../../domain/errors.ts";
import { assertCanClaim, assertCanRelease, type Task } from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import { assertKnownUser, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";

/**
 * Claim is one conditional write (`… WHERE status = 'open'`): of N members
 * claiming at once exactly one changes the row, the others get NotOpen. The
 * checks before it read only fields that never change after creation.
 */
export async function claim(deps: HumanTaskDeps, ctx: ActorContext, taskId: string): Promise<Task> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  const task = await deps.store.getTask(ctx.tenantId, taskId);
  if (!task) throw notFound("task", taskId);
  assertCanClaim(task, ctx.actorId, (g) => deps.directory.isMember(ctx.actorId, g));
  const now = deps.clock.now();
  const patch = { status: "claimed" as const, claimedBy: ctx.actorId, claimedAt: now };
  // One conditional write: no transaction needed around it.
  const won = await deps.store.autocommit((tx) =>
    tx.updateTask(ctx.tenantId, taskId, ["open"], patch),
  );
  if (!won) throw notOpen(`task '${taskId}' is no longer open`);
  return { ...task, ...patch };
}

/** Release reads under the row lock: claimedBy must still be the actor when the write lands. */
export async function release(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
): Promise<Task> {
  requireId("task id", taskId);
  return deps.store.transaction(async (tx) => {
    const task = await tx.lockTask(ctx.tenantId, taskId);
    if (!task) throw notFound("task", taskId);
    assertCanRelease(task, ctx.actorId);
    const patch = { status: "open" as const, claimedBy: null, claimedAt: null };
    await tx.updateTask(ctx.tenantId, taskId, ["claimed"], patch);
    return { ...task, ...patch };
  });
}
