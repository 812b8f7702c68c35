/**
 * Delegate, resolve, reassign (domain/task-delegation.ts): giving a task to
 * someone else. Each reads the task, checks it in the order of every use case
 * — the task's state, then the actor, then the request — and writes only while
 * the task is still as read; when it changed in between, it is read and
 * checked again, so the error is the one the task as it now stands deserves.
 * Each change is an event of the task's trail, with the actor and the comment
 * given as its reason.
 */
import type { AssigneeRequest } from "../../domain/assignee.ts";
import { taskflowError } from "../../domain/errors.ts";
import type { Task } from "../../domain/task.ts";
import {
  assertCanDelegate,
  assertCanReassign,
  assertCanResolve,
  holderOf,
  type Handover,
} from "../../domain/task-delegation.ts";
import { commentText, type TaskChange } from "../../domain/task-event.ts";
import type { ActorContext } from "../actor-context.ts";
import { assertKnownGroup, assertKnownUser, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";

const MAX_ATTEMPTS = 5;

export interface HandoverRequest {
  /** Why, kept as the reason of the trail's event. */
  comment?: string | undefined;
}

export function delegate(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: HandoverRequest & { to: string },
): Promise<Task> {
  return handOver(deps, ctx, taskId, "delegated", req.comment, (t) => {
    assertCanDelegate(t, ctx.actorId, req.to);
    assertKnownUser(deps.directory, "to", req.to);
    // The owner stays the first delegator when a resolved task is delegated again.
    const owner = t.owner ?? holderOf(t) ?? ctx.actorId;
    return { assigneeKind: "user", assigneeId: req.to, owner, delegation: "pending" };
  });
}

export function resolve(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: HandoverRequest,
): Promise<Task> {
  return handOver(deps, ctx, taskId, "resolved", req.comment, (t) => {
    assertCanResolve(t, ctx.actorId);
    return { assigneeKind: "user", assigneeId: t.owner!, owner: t.owner, delegation: "resolved" };
  });
}

export function reassign(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  req: HandoverRequest & { assignee: AssigneeRequest },
): Promise<Task> {
  return handOver(deps, ctx, taskId, "reassigned", req.comment, (t) => {
    assertCanReassign(t, ctx.actorId);
    const a = req.assignee;
    if (a?.kind === "user") assertKnownUser(deps.directory, "assignee.id", a.id);
    else if (a?.kind === "group") assertKnownGroup(deps.directory, "assignee.id", a.id);
    else
      throw taskflowError("InvalidAssignee", {
        detail: "a task is reassigned to one user or one group",
      });
    return { assigneeKind: a.kind, assigneeId: a.id, owner: null, delegation: null };
  });
}

async function handOver(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  kind: TaskChange["kind"],
  comment: string | undefined,
  decide: (t: Task) => Handover,
): Promise<Task> {
  requireId("task id", taskId);
  const reason = commentText(comment, "comment");
  for (let attempt = 1; ; attempt++) {
    const task = await deps.store.getTask(ctx.tenantId, taskId);
    if (!task) throw taskflowError("TaskNotFound", { taskId });
    assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
    const handover = decide(task);
    const change: TaskChange = { kind, by: ctx.actorId, at: deps.clock.now(), reason };
    if (await deps.store.handOver({ tenantId: ctx.tenantId, task, handover, change }))
      return { ...task, ...handover, status: "open", claimedBy: null, claimedAt: null };
    if (attempt === MAX_ATTEMPTS) throw taskflowError("TaskNoLongerOpen", { taskId });
  }
}
