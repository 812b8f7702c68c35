/**
 * Rate limiters on the store's database: one row per (tenant, limiter, key) in
 * coord_rate_counters, and one statement per consume — an upsert that decides
 * and counts in the row it locks, RETURNING what it decided (all three
 * backends: PostgreSQL, SQLite ≥ 3.35, MariaDB ≥ 10.5).
 *
 * Why not rate-limiter-flexible's RateLimiterPostgres / MySQL / SQLite, which
 * the project depends on (v11):
 * - a refused consume still adds its points (its upsert always increments), so
 *   a refused 5-point call would eat into the next 1-point one; here nothing
 *   is taken over the cap;
 * - its windows start at a key's first consume, where ours start at multiples
 *   of their length (every node agrees on the edges), and it has no sliding
 *   window on SQL;
 * - its table is (key, points, expire) inserted positionally, so it cannot
 *   carry tenant_id, and it needs a raw pg / mysql2 / better-sqlite3 client of
 *   its own: a second pool beside the store's, with its own connect timeout
 *   and its own mapping of driver errors to UnavailableError, which the
 *   store's Kysely instance already gives.
 *
 * Sliding windows are the weighted two-window estimate (rate-limit-windows.ts)
 * rather than an exact log: a log needs a row per consumed point, and a
 * consume would become insert + count + delete under a lock; the estimate
 * keeps one row and one statement.
 *
 * Clocks: window edges come from this node's clock. A node whose clock is
 * behind never moves a row's window back (it counts into the newer window).
 */
import { sql } from "kysely";
import { consumeCounter, type ConsumeParams, type CounterRow } from "./consume-counter.ts";
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter-port.ts";
import { checkPoints } from "../check-input.ts";
import type { SqlContext } from "../coordination-context.ts";
import {
  consumeInput,
  fixedRetryAfter,
  limiterSpec,
  previousWeight,
  slidingRetryAfter,
  windowStart,
  type LimiterSpec,
} from "../rate-limit-windows.ts";
import { deleteExpired, num, rowKeyHash } from "./sql-counter-cache-rows.ts";

export function sqlRateLimiters(ctx: SqlContext): RateLimiters {
  return {
    limiter: (options) => sqlRateLimiter(ctx, limiterSpec(options)),
    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      return deleteExpired(ctx, "coord_rate_counters", maxEntries, Date.now());
    },
  };
}

function sqlRateLimiter(ctx: SqlContext, spec: LimiterSpec): RateLimiter {
  const consume = consumeCounter(ctx.dialect);
  const hash = (key: string) =>
    rowKeyHash([ctx.keyPrefix, spec.name, spec.window, spec.windowMs, key]);
  return {
    async consume(tenant, key, points) {
      const n = consumeInput(tenant, key, points);
      const now = Date.now();
      const params = consumeParams(spec, tenant, hash(key), n, now);
      const { rows } = await ctx.db.executeQuery(consume(params));
      const row = rows[0];
      if (row === undefined) throw new Error("rate limiter upsert returned no row");
      return result(spec, row, n, now);
    },
    async reset(tenant, key) {
      consumeInput(tenant, key, 1);
      await sql`delete from coord_rate_counters
        where tenant_id = ${tenant} and key_hash = ${hash(key)}`.execute(ctx.db);
    },
  };
}

/** The parameters of the consume upsert (consume-counter.ts) for `n` points now. */
function consumeParams(
  spec: LimiterSpec,
  tenant: string,
  hash: string,
  n: number,
  now: number,
): ConsumeParams {
  const W = spec.windowMs;
  const start = windowStart(now, W);
  const sliding = spec.window === "sliding";
  return {
    tenant,
    hash,
    start,
    W,
    n,
    cap: spec.points,
    weight: sliding ? previousWeight(now, start, W) : 0,
    first: n <= spec.points ? n : 0,
    // A sliding row is still needed through the next window, as its "previous".
    expiresAt: start + (sliding ? 2 * W : W),
  };
}

function result(spec: LimiterSpec, row: CounterRow, n: number, now: number): ConsumeResult {
  const start = num(row.window_start);
  const current = num(row.points);
  const allowed = num(row.taken) > 0;
  if (spec.window === "fixed") {
    return {
      allowed,
      remaining: Math.max(0, spec.points - current),
      retryAfterMs: allowed ? 0 : fixedRetryAfter(now, start, spec.windowMs),
    };
  }
  const prev = num(row.prev_points);
  const used = prev * previousWeight(now, start, spec.windowMs) + current;
  return {
    allowed,
    remaining: Math.max(0, Math.floor(spec.points - used)),
    retryAfterMs: allowed
      ? 0
      : slidingRetryAfter({ prev, current, start }, n, spec.points, now, spec.windowMs),
  };
}
