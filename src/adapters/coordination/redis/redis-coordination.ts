/**
 * Coordination on Redis (ioredis): SET NX PX locks released by a
 * compare-and-delete script, native counters and TTLs. The connection is
 * closed by close() only when this module opened it; one the host handed in
 * stays the host's.
 */
import type { Redis } from "ioredis";
import { lazyCoordination } from "../lazy-coordination.ts";
import type { Coordination } from "../../../engine/coordination/coordination.ts";
import type { RedisContext } from "../coordination-context.ts";
import { redisLocks } from "./redis-locks.ts";
import { redisOneTimeCodes } from "./redis-one-time-codes.ts";
import { redisOpaqueTokens } from "./redis-opaque-tokens.ts";
import { redisRateLimiters } from "./redis-rate-limiters.ts";
import { redisTtlCache } from "./redis-ttl-cache.ts";

export function redisCoordination(ctx: RedisContext & { ownsConnection: boolean }): Coordination {
  return lazyCoordination({
    backend: "redis",
    locks: () => redisLocks(ctx),
    limiters: () => redisRateLimiters(ctx),
    cache: () => redisTtlCache(ctx),
    codes: (limiters) => redisOneTimeCodes(ctx, limiters),
    tokens: () => redisOpaqueTokens(ctx),
    async ping() {
      await ctx.redis.ping();
    },
    closeRest: () => (ctx.ownsConnection ? closeQuietly(ctx.redis) : Promise.resolve()),
  });
}

async function closeQuietly(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
