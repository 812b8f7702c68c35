/**
 * GET /v1/tasks?status=…: whose tasks (a user's or a group's) in which state.
 *
 * For a user: open — own and the user's groups' open tasks plus those the user
 * claimed (the inbox); claimed — those the user claimed; completed — those the
 * user completed (whoever they were assigned to); cancelled — cancelled tasks
 * assigned to the user or the user's groups; all — every task assigned to the
 * user or the user's groups. For a group: the group's tasks in that state
 * (claimed and completed: by any member).
 */
import { taskflowError } from "../../domain/errors.ts";
import {
  DEFAULT_PAGE_SIZE,
  ID_PATTERN,
  MAX_ID_LENGTH,
  MAX_PAGE_SIZE,
} from "../../domain/limits.ts";
import { TaskListStatuses, type TaskListStatus } from "../../domain/task-list.ts";
import type { Task } from "../../domain/task.ts";
import type { TenantContext, ActorContext } from "../actor-context.ts";
import { assertKnownGroup, listUser } from "./checks.ts";
import type { Page, PageRequest } from "./human-task-api.ts";
import type { FinishedPosition, FinishedTasksQuery, TaskAssigneeKey } from "./task-store-port.ts";
import type { HumanTaskDeps } from "./deps.ts";
import { fetchPage } from "./pagination.ts";
import { groupInbox, userInbox } from "./queries.ts";

type Whose = { kind: "user" | "group"; id: string };
/** A user's list without an id is the actor's own. */
type Asked = { kind: "user"; id: string | undefined } | { kind: "group"; id: string };

/** Embedding callers are not behind the route's schema. */
function checkTaskListStatus(s: unknown): TaskListStatus {
  if (!TaskListStatuses.includes(s as TaskListStatus)) {
    throw taskflowError("InvalidParameter", {
      detail: `status must be one of ${TaskListStatuses.join(", ")}`,
    });
  }
  return s as TaskListStatus;
}

export async function listTasks(
  deps: HumanTaskDeps,
  ctx: TenantContext | ActorContext,
  asked: Asked,
  status: TaskListStatus,
  page: PageRequest,
): Promise<Page<Task>> {
  // Whose list: with the static directory, a user or group it knows — for REST and library alike.
  if (asked.kind === "group") assertKnownGroup(deps.directory, "group", asked.id);
  const whose: Whose =
    asked.kind === "group" ? asked : { kind: "user", id: listUser(deps.directory, ctx, asked.id) };
  const tenantId = ctx.tenantId;
  const assignees: TaskAssigneeKey[] =
    whose.kind === "group"
      ? [whose]
      : [whose, ...deps.directory.groupsOf(whose.id).map((id) => ({ kind: "group" as const, id }))];
  switch (checkTaskListStatus(status)) {
    case "open":
      return whose.kind === "user"
        ? userInbox(deps, ctx, whose.id, page)
        : groupInbox(deps, ctx, whose.id, page);
    case "claimed":
      return whose.kind === "user"
        ? fetchPage(page, (q) =>
            deps.store.inbox({ ...q, tenantId, assignees: [], claimedBy: whose.id }),
          )
        : fetchPage(page, (q) =>
            deps.store.assignedTasks({ ...q, tenantId, assignees, status: "claimed" }),
          );
    case "all":
      return fetchPage(page, (q) => deps.store.assignedTasks({ ...q, tenantId, assignees }));
    case "completed":
      return finishedPage(page, (q) =>
        deps.store.finishedTasks({
          ...q,
          tenantId,
          status: "done",
          ...(whose.kind === "user" ? { completedBy: whose.id } : { assignees }),
        }),
      );
    case "cancelled":
      return finishedPage(page, (q) =>
        deps.store.finishedTasks({ ...q, tenantId, status: "cancelled", assignees }),
      );
  }
}

type FinishedPage = Pick<FinishedTasksQuery, "limit" | "before">;

/**
 * fetchPage for newest-first lists: the page token is "<completedAt>.<id>" of
 * the last task, made and read only here (the server wraps it in its cursor).
 */
async function finishedPage(
  req: PageRequest,
  load: (q: FinishedPage) => Promise<Task[]>,
): Promise<Page<Task>> {
  const limit = req.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw taskflowError("InvalidParameter", {
      detail: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  const rows = await load({ limit: limit + 1, before: parsePosition(req.after) });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const more = rows.length > limit && last !== undefined;
  return { items, nextAfter: more ? `${last.completedAt ?? 0}.${last.id}` : null };
}

const POSITION = /^(\d{1,15})\.(.+)$/;
const ID = new RegExp(ID_PATTERN);

function parsePosition(after: string | undefined): FinishedPosition | undefined {
  if (after === undefined) return undefined;
  const m = POSITION.exec(after);
  const id = m?.[2];
  if (m === null || id === undefined || id.length > MAX_ID_LENGTH || !ID.test(id)) {
    throw taskflowError("MalformedCursor", { detail: "malformed cursor" });
  }
  return { at: Number(m[1]), id };
}
