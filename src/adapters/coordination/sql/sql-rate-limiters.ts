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
import { sql, type RawBuilder } from "kysely";
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter.ts";
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
import { deleteExpired, int, num, real, rowKeyHash } from "./sql-counter-cache-rows.ts";

interface CounterRow {
  window_start: unknown;
  points: unknown;
  prev_points: unknown;
  taken: unknown;
}

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
  const hash = (key: string) =>
    rowKeyHash([ctx.keyPrefix, spec.name, spec.window, spec.windowMs, key]);
  return {
    async consume(tenant, key, points) {
      const n = consumeInput(tenant, key, points);
      const now = Date.now();
      const { rows } = await consumeStatement(ctx, spec, tenant, hash(key), n, now).execute(ctx.db);
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

/**
 * The upsert. In the update branch every expression reads the row as it was,
 * except on MariaDB, which assigns left to right and lets later expressions
 * see earlier assignments: hence `taken` first, `points` reading `taken` there,
 * and window_start last.
 */
function consumeStatement(
  ctx: SqlContext,
  spec: LimiterSpec,
  tenant: string,
  hash: string,
  n: number,
  now: number,
): RawBuilder<CounterRow> {
  const W = spec.windowMs;
  const start = windowStart(now, W);
  const sliding = spec.window === "sliding";
  // A sliding row is still needed through the next window, as its "previous".
  const expiresAt = int(ctx, start + (sliding ? 2 * W : W));
  const weight = real(ctx, sliding ? previousWeight(now, start, W) : 0);
  const old = (column: string) => sql.ref(`coord_rate_counters.${column}`);
  const newWindow = sql`(${int(ctx, start)} > ${old("window_start")})`;
  const prev = sql`(case when ${newWindow}
      then (case when ${int(ctx, start)} = ${old("window_start")} + ${int(ctx, W)}
        then ${old("points")} else 0 end)
      else ${old("prev_points")} end)`;
  const current = sql`(case when ${newWindow} then 0 else ${old("points")} end)`;
  const fits = sql`(${prev} * ${weight} + ${current} + ${int(ctx, n)} <= ${int(ctx, spec.points)})`;
  const taken = sql`(case when ${fits} then ${int(ctx, n)} else 0 end)`;
  const first = n <= spec.points ? n : 0;
  const insert = sql`insert into coord_rate_counters
      (tenant_id, key_hash, window_start, points, prev_points, taken, expires_at)
    values (${tenant}, ${hash}, ${int(ctx, start)}, ${int(ctx, first)}, 0, ${int(ctx, first)}, ${expiresAt})`;
  const assignments = sql`
      taken = ${taken},
      prev_points = ${prev},
      points = ${current} + ${ctx.backend === "mysql" ? sql.ref("taken") : taken},
      expires_at = case when ${newWindow} then ${expiresAt} else ${old("expires_at")} end,
      window_start = case when ${newWindow} then ${int(ctx, start)} else ${old("window_start")} end`;
  const returning = sql`returning window_start, points, prev_points, taken`;
  return ctx.backend === "mysql"
    ? sql<CounterRow>`${insert} on duplicate key update ${assignments} ${returning}`
    : sql<CounterRow>`${insert} on conflict (tenant_id, key_hash) do update set ${assignments} ${returning}`;
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
