/** Small SQL pieces every read and command shares. */
import { sql } from "kysely";
import { MAX_PAGE_SIZE } from "../../domain/limits.ts";

/**
 * Constants in WHERE clauses are inlined as literals, not bound: SQLite (and a
 * PostgreSQL generic plan) only uses a partial index `WHERE status = 'open'`
 * when the query says `status = 'open'` literally.
 */
export const lit = <T extends string>(v: T) => sql.lit<T>(v);

/**
 * The engine validates limits; this keeps a bad caller from asking for a million rows.
 * One past the largest page: the engine asks for limit + 1 to learn whether more follow
 * (capped at MAX_PAGE_SIZE, a full page of 500 never said a next one existed).
 */
export const pageLimit = (limit: number) =>
  Math.min(Math.max(Math.trunc(limit) || 1, 1), MAX_PAGE_SIZE + 1);
