import type { NextAssignment } from "../../domain/assignment.ts";
import { completionOf, type StatusCounts } from "../../domain/completion.ts";
import { notFound, notOpen } from "../../domain/errors.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import { assertCanComplete, type Task } from "../../domain/task.ts";
import type { Instance } from "../../domain/instance.ts";
import type { Vars } from "../../domain/vars.ts";
import type { ActorContext } from "../actor-context.ts";
import type { AssignResult, CompleteAndEndResult, CompleteResult } from "../human-task-api.ts";
import type { StoreTx } from "../ports.ts";
import { assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import { knownDefinition, type DefinitionCache } from "./definition-cache.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { cacheOpenTasks, type ReferralFacts } from "./open-task-cache.ts";
import { newReferral, performAssignment } from "./perform-assignment.ts";

/**
 * Complete a task, then — if that finished its referral — perform the parallel
 * join, all in one transaction.
 *
 * Why the root row lock: two last tasks completing at the same moment in two
 * transactions would each count the other as still open (neither sees the
 * other's uncommitted write) and the join would never fire. Locking the root
 * first serialises completions within one process tree, so the second one
 * counts after the first has committed. The conditional write on joined_at
 * (`closeReferral`, `markJoined`) then makes the join happen at most once even if
 * that ever changed.
 *
 * Without `next`, on PostgreSQL, the same locks and writes run as one statement
 * (see completeInOneStatement below); everything else takes the transaction.
 */
export async function complete(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: { vars?: Vars | undefined; next?: NextAssignment | undefined },
): Promise<CompleteResult> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  assertStorableText(req.vars, "vars");
  assertNextChain(deps.directory, req.next);
  const now = deps.clock.now();
  if (req.next === undefined && deps.store.completesInOneStatement) {
    const direct = await completeInOneStatement(deps, ctx, taskId, req.vars, now);
    if (direct) return direct;
  }
  return deps.store.transaction(async (tx) => {
    const done = await finishTask(tx, ctx, taskId, req.vars, now, true);
    const { task } = done;
    let root = done.root;
    const completion = completionOf(task.instanceId, done.counts!);
    let joined: AssignResult | null = null;
    if (completion.allCompleted) {
      const closed = await tx.closeReferral(ctx.tenantId, task.instanceId, now);
      // A referral made without a parent is its own root: now it is completed too.
      if (closed?.referral.id === root.id) root = closed.referral;
      if (closed?.joined) joined = await joinNext(tx, deps.definitions, closed.referral, root, now);
    }
    const explicit = req.next
      ? await performAssignment(
          tx,
          deps.definitions,
          ctx,
          {
            ...req.next,
            parentInstanceId: task.rootInstanceId,
            definitionKey: req.next.definitionKey ?? task.definitionKey,
          },
          now,
          root,
        )
      : null;
    return { task, completion, next: explicit ?? joined, joined };
  });
}

/**
 * The common completion — no `next`, the task's referral under a root — as
 * one autocommit statement (`Store.completeInOneStatement`, PostgreSQL): the
 * same root-then-task locks, the same conditional writes, the same join guard.
 * It is prepared from one unlocked read of the task and its referral; anything
 * that read cannot settle (the task missing, the actor's check failing, the
 * referral being its own root, a definition of the join missing) and a write
 * that finds the task changed since (nothing is written then) go to the
 * transactional path, which decides under the locks with the usual errors.
 */
async function completeInOneStatement(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  vars: Vars | undefined,
  now: number,
): Promise<CompleteResult | undefined> {
  // A task created here is known without a read; its write is conditional on
  // `status = 'open'`, so a task that changed since is only read after all.
  const known = deps.openTasks.take(ctx.tenantId, taskId);
  if (known !== undefined) {
    const r = await completeAsRead(deps, ctx, known.task, known.referral, vars, now);
    if (r !== undefined) return r;
  }
  const found = await deps.store.getTaskWithInstance(ctx.tenantId, taskId);
  if (!found) return undefined;
  return completeAsRead(deps, ctx, found.task, found.instance, vars, now);
}

/** The one statement, for the task and referral as read (or as created, see OpenTaskCache). */
async function completeAsRead(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  task: Task,
  referral: ReferralFacts,
  vars: Vars | undefined,
  now: number,
): Promise<CompleteResult | undefined> {
  if (referral.parentInstanceId === null) return undefined;
  const taskId = task.id;
  try {
    assertCanComplete(task, ctx.actorId);
  } catch {
    return undefined;
  }
  const next = referral.onAllCompleted;
  let join: { referral: Instance; tasks: Task[] } | null = null;
  if (next !== null) {
    const key = next.definitionKey ?? referral.definitionKey;
    const def = await knownDefinition(deps.definitions, deps.store, ctx.tenantId, key);
    if (!def) return undefined;
    for (let n = next.onAllCompleted; n; n = n.onAllCompleted) {
      const k = n.definitionKey ?? key;
      if (k !== key && !(await knownDefinition(deps.definitions, deps.store, ctx.tenantId, k)))
        return undefined;
    }
    // The join acts for whoever set it up (see joinNext()).
    const actor = { tenantId: ctx.tenantId, actorId: referral.startedBy };
    join = newReferral(actor, def, referral.rootInstanceId, next, now);
  }
  const patch = {
    status: "done" as const,
    completedBy: ctx.actorId,
    completedAt: now,
    vars: vars ?? null,
  };
  const r = await deps.treeTurns.run(ctx.tenantId, task.rootInstanceId, () =>
    deps.store.completeInOneStatement({
      tenantId: ctx.tenantId,
      task,
      patch,
      requireRunningRoot: join !== null,
      join,
    }),
  );
  if (!r) return undefined;
  const completion = completionOf(task.instanceId, r.counts);
  let joined: AssignResult | null = null;
  if (r.joined && join) {
    joined = { instanceId: join.referral.id, task: join.tasks[0]!, tasks: join.tasks };
    cacheOpenTasks(deps, join.tasks, join.referral); // committed with this statement
  }
  if (completion.allCompleted && !r.closed) {
    // The referral was already completed or joined before its last task finished —
    // no path of the engine leaves it so. The task is done (committed); close the
    // referral step by step as the transactional path would, under the root lock.
    joined = await deps.store.transaction(async (tx) => {
      const root = await tx.lockRootOf(ctx.tenantId, { taskId });
      const closed = await tx.closeReferral(ctx.tenantId, task.instanceId, now);
      return root && closed?.joined
        ? joinNext(tx, deps.definitions, closed.referral, root, now)
        : null;
    });
  }
  return { task: { ...task, ...patch }, completion, next: joined, joined };
}

/** Complete-and-end: complete this task, cancel every other open task of the tree, close the tree. */
export async function completeAndEnd(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: { vars?: Vars | undefined },
): Promise<CompleteAndEndResult> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  assertStorableText(req.vars, "vars");
  const now = deps.clock.now();
  return deps.store.transaction(async (tx) => {
    const { task } = await finishTask(tx, ctx, taskId, req.vars, now, false);
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

/**
 * Lock order everywhere: root instance, then task. The root is locked and the
 * task read in one statement; the task row itself is not locked, so the write
 * is conditional on what the check read (status, and the claimer of a claimed
 * task). A claim or release (which take no root lock) landing in between makes
 * it fail: then the task is read again under its row lock and checked again.
 */
async function finishTask(
  tx: StoreTx,
  ctx: ActorContext,
  taskId: string,
  vars: Vars | undefined,
  now: number,
  count: boolean,
): Promise<{ root: Instance; task: Task; counts: StatusCounts | null }> {
  const found = await tx.lockRootWithTask(ctx.tenantId, taskId);
  if (!found) throw notFound("task", taskId);
  let task = found.task;
  assertCanComplete(task, ctx.actorId);
  const patch = {
    status: "done" as const,
    completedBy: ctx.actorId,
    completedAt: now,
    vars: vars ?? null,
  };
  let written = await tx.completeTask(ctx.tenantId, task, patch, count);
  if (!written) {
    const locked = await tx.lockTask(ctx.tenantId, taskId);
    if (!locked) throw notFound("task", taskId);
    task = locked;
    assertCanComplete(task, ctx.actorId);
    written = await tx.completeTask(ctx.tenantId, task, patch, count);
    if (!written) throw notOpen(`task '${taskId}' is no longer open`);
  }
  return { root: found.root, task: { ...task, ...patch }, counts: written.counts };
}

/**
 * Performs the referral's onAllCompleted under the same (already locked) root.
 * The join acts for whoever set it up: the actor of the assignment that carried
 * onAllCompleted.
 */
function joinNext(
  tx: StoreTx,
  definitions: DefinitionCache,
  referral: Instance,
  root: Instance,
  now: number,
): Promise<AssignResult> {
  const next = referral.onAllCompleted!;
  const actor = { tenantId: referral.tenantId, actorId: referral.startedBy };
  return performAssignment(
    tx,
    definitions,
    actor,
    {
      ...next,
      definitionKey: next.definitionKey ?? referral.definitionKey,
      parentInstanceId: referral.rootInstanceId,
    },
    now,
    root,
  );
}
