/**
 * The audit trail (domain/task-event.ts) as people read it — a task's events,
 * a process's — and the one entry they add themselves: a comment. Every other
 * event is written by the change it records (the store's trigger, migration
 * 019), so nothing here can leave a change out.
 */
import { taskflowError } from "../../domain/errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../domain/limits.ts";
import { assertStorableText } from "../../domain/storable-text.ts";
import { commentText, type TaskEvent } from "../../domain/task-event.ts";
import type { ActorContext, TenantContext } from "../actor-context.ts";
import { assertKnownUser, requireId } from "./checks.ts";
import type { HumanTaskDeps } from "./deps.ts";
import type { Page, PageRequest } from "./human-task-api.ts";
import type { TaskEventQuery } from "./task-store-port.ts";

/** Any user the directory knows may comment on a task of the tenant, open or finished. */
export async function comment(
  deps: HumanTaskDeps,
  ctx: ActorContext,
  taskId: string,
  text: unknown,
): Promise<TaskEvent> {
  requireId("task id", taskId);
  assertKnownUser(deps.directory, "X-Actor-Id", ctx.actorId);
  const body = commentText(text, "text");
  if (body === null)
    throw taskflowError("InvalidArgument", { detail: "text: a comment needs some text" });
  assertStorableText(body, "text");
  const event = await deps.store.addComment({
    tenantId: ctx.tenantId,
    taskId,
    actor: ctx.actorId,
    at: deps.clock.now(),
    text: body,
  });
  if (event === undefined) throw taskflowError("TaskNotFound", { taskId });
  return event;
}

export async function taskEvents(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  taskId: string,
  page: PageRequest,
): Promise<Page<TaskEvent>> {
  requireId("task id", taskId);
  if ((await deps.store.getTask(ctx.tenantId, taskId)) === undefined)
    throw taskflowError("TaskNotFound", { taskId });
  return eventPage(deps, { tenantId: ctx.tenantId, taskId }, page);
}

/** Every task's events of the process `instanceId` belongs to (any instance of its tree). */
export async function instanceEvents(
  deps: HumanTaskDeps,
  ctx: TenantContext,
  instanceId: string,
  page: PageRequest,
): Promise<Page<TaskEvent>> {
  requireId("instance id", instanceId);
  const inst = await deps.store.getInstance(ctx.tenantId, instanceId);
  if (inst === undefined) throw taskflowError("InstanceNotFound", { instanceId });
  return eventPage(deps, { tenantId: ctx.tenantId, rootInstanceId: inst.rootInstanceId }, page);
}

/** Keyset pages over the events' seq; `after` is the last seq seen, as text. */
async function eventPage(
  deps: HumanTaskDeps,
  where: Omit<TaskEventQuery, "limit" | "afterSeq">,
  req: PageRequest,
): Promise<Page<TaskEvent>> {
  const limit = req.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw taskflowError("InvalidParameter", {
      detail: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  const afterSeq = req.after === undefined ? undefined : Number(req.after);
  if (afterSeq !== undefined && !(Number.isSafeInteger(afterSeq) && afterSeq >= 0))
    throw taskflowError("MalformedCursor", { detail: "cursor: not one this list gave" });
  const rows = await deps.store.listTaskEvents({ ...where, afterSeq, limit: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextAfter: rows.length > limit && last ? String(last.seq) : null };
}
