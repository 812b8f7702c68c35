/**
 * The TTL cache in one table (coord_cache): a row per (tenant, key hash), the
 * value as JSON text, expires_at in ms. Every write is one statement, so no
 * transaction spans a round trip and racing nodes are ordered by the row:
 *
 * - set: an upsert.
 * - setIfAbsent: PostgreSQL and SQLite upsert with `DO UPDATE … WHERE` the old
 *   row has expired, and RETURNING says whether this statement wrote. MariaDB's
 *   `ON DUPLICATE KEY UPDATE` cannot say so (mysql2 connects with FOUND_ROWS,
 *   so an untouched row and an insert both count 1): there it is a delete of
 *   the expired row, then `INSERT IGNORE`, which counts 1 only when it
 *   inserted. Each statement is atomic and the pair is still right under a
 *   race: the delete removes only what reads as absent anyway, and of several
 *   inserts one wins.
 * - compareAndSet: an UPDATE whose WHERE holds the expected text and the
 *   expiry; the row lock makes a second racer re-read the row the first wrote.
 * - delete: DELETE … RETURNING the expiry, so an expired row goes too but
 *   counts as absent.
 *
 * Times are this node's clock: nodes' clocks differ by the NTP error
 * (milliseconds), which is also how far an expiry may move between nodes.
 */
import { sql } from "kysely";
import type { JsonValue, TtlCache } from "../../../engine/coordination/ttl-cache-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { SqlContext } from "../coordination-context.ts";
import { jsonText } from "../json-text.ts";
import { deleteExpired, int, num, rowKeyHash } from "./sql-counter-cache-rows.ts";

interface Target {
  tenant: string;
  hash: string;
}

export function sqlTtlCache(ctx: SqlContext): TtlCache {
  const target = (tenant: string, key: string): Target => {
    checkTenant(tenant);
    checkKey("cache key", key);
    return { tenant, hash: rowKeyHash([ctx.keyPrefix, key]) };
  };
  const where = (t: Target) => sql`tenant_id = ${t.tenant} and key_hash = ${t.hash}`;

  return {
    async get(tenant, key) {
      const t = target(tenant, key);
      const { rows } = await sql<{ value: string }>`
        select value from coord_cache
        where ${where(t)} and expires_at > ${int(ctx, Date.now())}`.execute(ctx.db);
      const row = rows[0];
      return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
    },

    async set(tenant, key, value, ttlMs) {
      const t = target(tenant, key);
      const text = jsonText(value);
      checkDuration("cache TTL", ttlMs);
      const expiresAt = int(ctx, Date.now() + ttlMs);
      const insert = sql`insert into coord_cache (tenant_id, key_hash, value, expires_at)
        values (${t.tenant}, ${t.hash}, ${text}, ${expiresAt})`;
      await (
        ctx.dialect.upsert === "on-duplicate-key"
          ? sql`${insert} on duplicate key update
            value = values(value), expires_at = values(expires_at)`
          : sql`${insert} on conflict (tenant_id, key_hash) do update set
            value = excluded.value, expires_at = excluded.expires_at`
      ).execute(ctx.db);
    },

    async setIfAbsent(tenant, key, value, ttlMs) {
      const t = target(tenant, key);
      const text = jsonText(value);
      checkDuration("cache TTL", ttlMs);
      const now = Date.now();
      // ON DUPLICATE KEY UPDATE has no WHERE, nor a count that says it wrote (see the header).
      if (ctx.dialect.upsert === "on-duplicate-key") {
        await sql`delete from coord_cache where ${where(t)} and expires_at <= ${now}`.execute(
          ctx.db,
        );
        const r = await sql`insert ignore into coord_cache (tenant_id, key_hash, value, expires_at)
          values (${t.tenant}, ${t.hash}, ${text}, ${now + ttlMs})`.execute(ctx.db);
        return Number(r.numAffectedRows ?? 0n) === 1;
      }
      const { rows } = await sql`
        insert into coord_cache (tenant_id, key_hash, value, expires_at)
        values (${t.tenant}, ${t.hash}, ${text}, ${int(ctx, now + ttlMs)})
        on conflict (tenant_id, key_hash) do update
          set value = excluded.value, expires_at = excluded.expires_at
          where coord_cache.expires_at <= ${int(ctx, now)}
        returning 1 as written`.execute(ctx.db);
      return rows.length === 1;
    },

    async delete(tenant, key) {
      const t = target(tenant, key);
      const now = Date.now();
      const { rows } = await sql<{ expires_at: unknown }>`
        delete from coord_cache where ${where(t)} returning expires_at`.execute(ctx.db);
      const row = rows[0];
      return row !== undefined && num(row.expires_at) > now;
    },

    async compareAndSet(tenant, key, expected, next, ttlMs) {
      const t = target(tenant, key);
      const expectedText = jsonText(expected);
      const nextText = jsonText(next);
      checkDuration("cache TTL", ttlMs);
      const now = Date.now();
      // mysql2's FOUND_ROWS makes affected rows count matched rows: 1 even when next = expected.
      const r = await sql`update coord_cache
        set value = ${nextText}, expires_at = ${int(ctx, now + ttlMs)}
        where ${where(t)} and expires_at > ${int(ctx, now)} and value = ${expectedText}`.execute(
        ctx.db,
      );
      return Number(r.numAffectedRows ?? 0n) === 1;
    },

    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      return deleteExpired(ctx, "coord_cache", maxEntries, Date.now());
    },
  };
}
