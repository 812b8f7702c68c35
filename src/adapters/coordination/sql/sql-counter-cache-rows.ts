/**
 * What the SQL rate limiters and the SQL TTL cache share: how a key becomes
 * its row's key, how numbers are bound, and the bounded delete of expired rows.
 */
import { createHash } from "node:crypto";
import { sql, type RawBuilder } from "kysely";
import type { SqlContext } from "../coordination-context.ts";

/**
 * The row key: SHA-256 (hex) of the parts as a JSON array, so "a:b" + "c" and
 * "a" + "b:c" stay two rows, and a 512-character key fits any backend's index.
 */
export function rowKeyHash(parts: readonly (string | number)[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/**
 * A whole number as a parameter. PostgreSQL types an uncast parameter from its
 * first use and keeps that type in the prepared statement, so it is cast
 * explicitly; SQLite and MariaDB take the number as it is.
 */
export function int(ctx: SqlContext, n: number): RawBuilder<number> {
  return ctx.dialect.castParams ? sql<number>`cast(${n} as bigint)` : sql<number>`${n}`;
}

/** A fraction as a parameter (see int); MariaDB computes it as a double. */
export function real(ctx: SqlContext, x: number): RawBuilder<number> {
  return ctx.dialect.castParams ? sql<number>`cast(${x} as double precision)` : sql<number>`${x}`;
}

/** Drivers hand bigint columns back as number, bigint or string. */
export function num(v: unknown): number {
  return typeof v === "number" ? v : Number(v);
}

/**
 * Deletes at most `max` rows whose expires_at has passed; resolves with how
 * many went. PostgreSQL and SQLite have no DELETE … LIMIT, so they pick the
 * rows in a subselect (by primary key, rechecking the expiry in case a writer
 * renewed a row between the two); MariaDB has DELETE … LIMIT and cannot name
 * the table it deletes from in a subselect.
 */
export async function deleteExpired(
  ctx: SqlContext,
  table: "coord_cache" | "coord_rate_counters",
  max: number,
  now: number,
): Promise<number> {
  const t = sql.table(table);
  const result = ctx.dialect.deleteLimit
    ? await sql`delete from ${t} where expires_at <= ${now} limit ${max}`.execute(ctx.db)
    : await sql`delete from ${t}
          where expires_at <= ${int(ctx, now)}
            and (tenant_id, key_hash) in (
              select tenant_id, key_hash from ${t}
              where expires_at <= ${int(ctx, now)}
              limit ${int(ctx, max)})`.execute(ctx.db);
  return Number(result.numAffectedRows ?? 0n);
}
