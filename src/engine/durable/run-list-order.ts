/**
 * The two orders of GET /v1/runs. `oldest` (the default): by id, keyset after
 * the last id — stable, and for generated ids (UUIDv7) the order of creation.
 * `newest`: by creation time then id, both descending, the order an operator
 * reads a list in; its cursor holds both, as "<createdAt>:<id>", since a
 * caller's own ids ("order-1042") do not follow time.
 */
import { taskflowError } from "../../domain/errors.ts";
import { MAX_RUN_ID_LENGTH, type Run } from "../../domain/run.ts";

export const RUN_LIST_ORDERS = ["oldest", "newest"] as const;
export type RunListOrder = (typeof RUN_LIST_ORDERS)[number];

/** Where a newest-first page ends: the next page holds runs strictly before it. */
export interface RunPosition {
  createdAt: number;
  id: string;
}

const NEWEST_CURSOR = /^(\d{1,15}):(.+)$/s;

export function parseOrder(order: string | undefined): RunListOrder {
  if (order === undefined || order === "oldest") return "oldest";
  if (order === "newest") return "newest";
  throw taskflowError("InvalidParameter", {
    detail: `order must be one of ${RUN_LIST_ORDERS.join(", ")}`,
  });
}

/** The position a newest-first cursor names; a 400 for anything else (an oldest-first cursor too). */
export function parseNewestCursor(cursor: string): RunPosition {
  const m = NEWEST_CURSOR.exec(cursor);
  const id = m?.[2];
  if (m === null || id === undefined || id.length > MAX_RUN_ID_LENGTH) {
    throw taskflowError("MalformedCursor", {
      detail: "malformed cursor (not one of an order=newest page)",
    });
  }
  return { createdAt: Number(m[1]), id };
}

export const newestCursor = (last: Run): string => `${last.createdAt}:${last.id}`;
