/**
 * Cursors of GET /v1/tasks. The open inbox keeps the plain cursor (the last
 * id, pagination.ts), so cursors handed out before `status` existed stay
 * valid. Every other list tags its cursor with its status — base64url of
 * "<status>|<position>", `|` being outside the id alphabet — so a cursor is
 * only accepted by the list that made it: positions differ in kind (an id, or
 * a completion time and id) and a cursor carried across would page wrongly.
 */
import { taskflowError } from "../../domain/errors.ts";
import type { Page, PageRequest } from "../../engine/index.ts";
import type { TaskListStatus } from "../../domain/task-list.ts";
import { decodeCursor, encodeCursor, pageRequest } from "./pagination.ts";
import type { PageQuery } from "../openapi/schema-primitives.ts";

const SEPARATOR = "|";

export function taskListPageRequest(q: PageQuery, status: TaskListStatus): PageRequest {
  if (status === "open" || q.cursor === undefined) return pageRequest(q);
  const text = Buffer.from(q.cursor, "base64url").toString("utf8");
  const prefix = `${status}${SEPARATOR}`;
  // Re-encoding must give the same text: rejects junk that base64url decoding would tolerate.
  if (encodeCursor(text) !== q.cursor || !text.startsWith(prefix)) {
    throw taskflowError("MalformedCursor", {
      detail: `malformed cursor, or a cursor of another list than status=${status}`,
    });
  }
  const position = text.slice(prefix.length);
  // Id-ordered lists: the position is an id, checked like the plain cursor's.
  const after =
    status === "claimed" || status === "all" ? decodeCursor(encodeCursor(position)) : position;
  return { limit: q.limit, after };
}

export function taskListCursor(page: Page<unknown>, status: TaskListStatus): string | null {
  if (page.nextAfter === null) return null;
  return encodeCursor(
    status === "open" ? page.nextAfter : `${status}${SEPARATOR}${page.nextAfter}`,
  );
}
