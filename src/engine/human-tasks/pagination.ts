import { taskflowError } from "../../domain/errors.ts";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../domain/limits.ts";
import type { Page, PageRequest } from "./human-task-api.ts";
import type { PageQuery } from "./task-store-port.ts";

/**
 * Keyset pages: ask the store for one row more than the page holds; its
 * presence says whether another page follows, with no COUNT query.
 */
export async function fetchPage<T extends { id: string }>(
  req: PageRequest,
  load: (q: PageQuery) => Promise<T[]>,
): Promise<Page<T>> {
  const limit = req.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw taskflowError("InvalidParameter", {
      detail: `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  const rows = await load({ limit: limit + 1, after: req.after });
  const items = rows.slice(0, limit);
  return { items, nextAfter: rows.length > limit ? items[items.length - 1]!.id : null };
}
