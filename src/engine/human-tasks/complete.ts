import type { NextAssignment } from "../../domain/assignment.ts";
import { completionOf } from "../../domain/completion.ts";
import { taskflowError } from "../../domain/errors.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import { assertCompletable, assertMayComplete, type Task } from "../../domain/task.ts";
import type { ActorContext } from "../actor-context.ts";
import type { CompleteAndEndResult, CompleteResult } from "./human-task-api.ts";
import { completionInputOf, type CompletionRequest } from "./completion-input.ts";
import { assertNotExcluded } from "./four-eyes.ts";
import { assertNotDelegated } from "../../domain/task-delegation.ts";
import type { TaskChange } from "../../domain/task-event.ts";
import type { NewReferral, ReferralFacts } from "./task-store-port.ts";
import { assertKnownUser, assertNextChain, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";
import {
  assignResultOf,
  definitionsOf,
  missingDefinition,
  newReferral,
} from "./perform-assignment.ts";

/**
 * How often a completion re-reads a task that changed between its read and its
 * write (a claim or release landing in between) before it gives up as NotOpen.
 * Each round needs another writer to change the task again in that window.
 */
const MAX_ATTEMPTS = 5;

/**
 * Complete a task, then — if that finished its referral — perform the parallel
 * join, and the request's `next`, all as one store command.
 *
 * The engine decides on the task as read: who may complete it, the rows of the
 * join (the referral's onAllCompleted, acting for whoever set it up) and of
 * `next`. The store writes only while the task is still as read, completes the
 * referral with its last task and inserts the join exactly once (see
 * TaskStore.complete). When the task changed in between nothing is written and
 * the task is read and checked again, so the caller gets the error the task as
 * it now stands deserves (NotFound, Forbidden, NotOpen, Conflict).
 *
 * The checks run in the order of every use case (domain/task.ts): the task's
 * state, then the actor (known to the directory, allowed to complete it), then
 * the request's vars and `next`.
 */
export async function complete(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: CompletionRequest & { next?: NextAssignment | undefined },
): Promise<CompleteResult> {
  requireId("task id", taskId);
  const now = deps.clock.now();
  for (let attempt = 1; ; attempt++) {
    const found = await deps.store.findTaskToComplete(ctx.tenantId, taskId);
    if (!found) throw taskflowError("TaskNotFound", { taskId });
    const { task, referral } = found;
    // A pending delegation is the task's state: refused for everyone, before who asks.
    assertNotDelegated(task);
    assertRules(deps, ctx, task);
    await assertNotExcluded(deps, ctx.tenantId, task, ctx.actorId);
    if (attempt === 1) {
      assertStorableText(req.vars, "vars");
      assertStorableText(req.comment, "comment");
      assertNextChain(deps.directory, req.next, 1, "next");
    }
    // Checked on every attempt: the task as now read is what the write is conditional on.
    const input = completionInputOf(task, req);
    const join = await joinOf(deps, referral, now);
    const next = req.next ? await nextOf(deps, ctx, task, req.next, now) : null;
    const patch = {
      status: "done" as const,
      completedBy: ctx.actorId,
      completedAt: now,
      ...input,
      change: completed(ctx, now),
    };
    const r = await deps.store.complete({ tenantId: ctx.tenantId, task, patch, join, next });
    if (r.written) {
      const joined = r.joined && join ? assignResultOf(join) : null;
      return {
        task: { ...task, ...patch },
        completion: completionOf(task.instanceId, r.counts),
        next: next ? assignResultOf(next) : joined,
        joined,
      };
    }
    if (r.because === "root")
      throw taskflowError("RootClosed", { rootInstanceId: task.rootInstanceId });
    if (attempt === MAX_ATTEMPTS) throw taskflowError("TaskNoLongerOpen", { taskId });
  }
}

/** Complete-and-end: complete this task, cancel every other open task of the tree, close the tree. */
export async function completeAndEnd(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: CompletionRequest,
): Promise<CompleteAndEndResult> {
  requireId("task id", taskId);
  const now = deps.clock.now();
  for (let attempt = 1; ; attempt++) {
    const found = await deps.store.findTaskToComplete(ctx.tenantId, taskId);
    if (!found) throw taskflowError("TaskNotFound", { taskId });
    const { task } = found;
    // A pending delegation is the task's state: refused for everyone, before who asks.
    assertNotDelegated(task);
    assertRules(deps, ctx, task);
    await assertNotExcluded(deps, ctx.tenantId, task, ctx.actorId);
    if (attempt === 1) {
      assertStorableText(req.vars, "vars");
      assertStorableText(req.comment, "comment");
    }
    const patch = {
      status: "done" as const,
      completedBy: ctx.actorId,
      completedAt: now,
      ...completionInputOf(task, req),
      change: completed(ctx, now),
    };
    const othersCancelled: TaskChange = {
      kind: "cancelled",
      by: ctx.actorId,
      at: now,
      reason: `the process was ended with the completion of task ${task.id}`,
    };
    const r = await deps.store.completeAndEnd({
      tenantId: ctx.tenantId,
      task,
      patch,
      othersCancelled,
    });
    if (r.written) {
      const done = { ...task, ...patch };
      return { task: done, cancelled: r.cancelled, rootInstanceId: task.rootInstanceId };
    }
    if (attempt === MAX_ATTEMPTS) throw taskflowError("TaskNoLongerOpen", { taskId });
  }
}

const completed = (ctx: ActorContext, at: number): TaskChange => ({
  kind: "completed",
  by: ctx.actorId,
  at,
  reason: null,
});

/** State, then permission: the rules of a completion before its input is looked at. */
export function assertRules(
  deps: Pick<HumanTaskDeps, "directory">,
  ctx: ActorContext,
  task: Task,
): void {
  assertCompletable(task);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  assertMayComplete(task, ctx.actorId);
}

/**
 * The referral's onAllCompleted as rows, built before the write and inserted
 * only if this completion takes the join. The join acts for whoever set it up:
 * the actor of the assignment that carried onAllCompleted.
 */
async function joinOf(
  deps: HumanTaskDeps,
  referral: ReferralFacts,
  now: number,
): Promise<NewReferral | null> {
  const next = referral.onAllCompleted;
  if (next === null) return null;
  const key = next.definitionKey ?? referral.definitionKey;
  // Checked when the referral was assigned; definitions are never deleted.
  const defs = await definitionsOf(deps, referral.tenantId, key, next.onAllCompleted);
  if ("missing" in defs) throw taskflowError("DefinitionNotFound", { key: defs.missing });
  const actor = { tenantId: referral.tenantId, actorId: referral.startedBy };
  return newReferral(actor, defs.def, referral.rootInstanceId, next, now);
}

/** The request's `next` as rows under the task's root, acting as the completer. */
async function nextOf(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  task: Task,
  next: NextAssignment,
  now: number,
): Promise<NewReferral> {
  const key = next.definitionKey ?? task.definitionKey;
  const defs = await definitionsOf(deps, ctx.tenantId, key, next.onAllCompleted);
  if ("missing" in defs)
    return missingDefinition(deps, ctx.tenantId, task.rootInstanceId, defs.missing);
  return newReferral(ctx, defs.def, task.rootInstanceId, next, now);
}
