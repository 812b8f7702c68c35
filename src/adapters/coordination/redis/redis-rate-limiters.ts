/**
 * Rate limiters on Redis: one key per (tenant, limiter, key), one Lua script
 * per consume, so the check and the count are one step no other client's
 * command interleaves with. The scripts read Redis's own clock (TIME), so
 * every node sees the same window edges whatever its own clock says.
 *
 * - fixed: a hash {s: window start, p: points}, expiring at the window's end.
 * - sliding: an exact sliding log, a sorted set with one member per point
 *   scored by its time; a consume drops the members older than the window,
 *   counts the rest and adds its own only when they fit. Exact where the SQL
 *   backends estimate (rate-limit-windows.ts), and cheap here: O(log n) per
 *   point, in memory that Redis frees when the key expires. The price is
 *   memory proportional to the cap per key (a few dozen bytes a point), fine
 *   for the login, code and API limits sliding windows are for; a cap of
 *   millions per window wants the fixed kind.
 *
 * Why not rate-limiter-flexible's RateLimiterRedis (v11): its script
 * increments before it checks, so a refused consume still takes its points;
 * its windows start at a key's first consume, not at multiples of their
 * length; and it expires keys in whole seconds (floor(ms / 1000)), so a
 * window under a second gets no expiry at all.
 *
 * Counters expire by themselves (PEXPIRE): cleanup() has nothing to do.
 */
import { randomBytes } from "node:crypto";
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter-port.ts";
import { checkPoints } from "../check-input.ts";
import type { RedisContext } from "../coordination-context.ts";
import { consumeInput, limiterSpec, type LimiterSpec } from "../rate-limit-windows.ts";
import { luaScript, redisCall, runScript } from "./redis-calls.ts";

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n, cap, w = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
`;

/** Returns {allowed, remaining, retryAfterMs}. A window never moves back. */
const FIXED = luaScript(`${NOW}
local start = now - (now % w)
local v = redis.call('HMGET', KEYS[1], 's', 'p')
local s, p = tonumber(v[1]), tonumber(v[2]) or 0
if s == nil or s < start then s, p = start, 0 end
if p + n <= cap then
  redis.call('HSET', KEYS[1], 's', s, 'p', p + n)
  redis.call('PEXPIREAT', KEYS[1], s + w)
  return {1, cap - p - n, 0}
end
return {0, math.max(cap - p, 0), s + w - now}`);

/**
 * Returns {allowed, remaining, retryAfterMs}. When refused, the wait is until
 * the member whose leaving makes room has left: the (count + n - cap)-th oldest.
 */
const SLIDING = luaScript(`${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - w)
local count = redis.call('ZCARD', KEYS[1])
if count + n <= cap then
  for i = 1, n do redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. i) end
  redis.call('PEXPIRE', KEYS[1], w)
  return {1, cap - count - n, 0}
end
local retry = w
if n <= cap then
  local need = count + n - cap
  local member = redis.call('ZRANGE', KEYS[1], need - 1, need - 1, 'WITHSCORES')
  retry = tonumber(member[2]) + w - now
end
return {0, math.max(cap - count, 0), retry}`);

export function redisRateLimiters(ctx: RedisContext): RateLimiters {
  return {
    limiter: (options) => redisRateLimiter(ctx, limiterSpec(options)),
    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      return Promise.resolve(0);
    },
  };
}

function redisRateLimiter(ctx: RedisContext, spec: LimiterSpec): RateLimiter {
  // The name is escaped so a ':' in it cannot shift where the key starts.
  const base = `${ctx.keyPrefix}rl:${encodeURIComponent(spec.name)}:${spec.window}:${spec.windowMs}:`;
  const keyOf = (tenant: string, key: string) => `${base}${tenant}:${key}`;
  return {
    async consume(tenant, key, points) {
      const n = consumeInput(tenant, key, points);
      const k = keyOf(tenant, key);
      const reply = await redisCall(ctx.redis, (r) =>
        spec.window === "fixed"
          ? runScript(r, FIXED, [k], [n, spec.points, spec.windowMs])
          : runScript(r, SLIDING, [k], [n, spec.points, spec.windowMs, nonce()]),
      );
      return resultOf(reply, spec.windowMs);
    },
    async reset(tenant, key) {
      consumeInput(tenant, key, 1);
      const k = keyOf(tenant, key);
      await redisCall(ctx.redis, (r) => r.del(k));
    },
  };
}

const nonce = () => randomBytes(8).toString("hex");

function resultOf(reply: unknown, windowMs: number): ConsumeResult {
  const [allowed, remaining, retry] = (reply as number[]).map(Number);
  if (allowed === 1) return { allowed: true, remaining: remaining ?? 0, retryAfterMs: 0 };
  return {
    allowed: false,
    remaining: remaining ?? 0,
    retryAfterMs: Math.min(windowMs, Math.max(1, retry ?? windowMs)),
  };
}
