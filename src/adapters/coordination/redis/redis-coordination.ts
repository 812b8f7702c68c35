/**
 * Coordination on Redis (ioredis): SET NX PX locks released by a
 * compare-and-delete script, native counters and TTLs. The connection is
 * closed by close() only when this module opened it; one the host handed in
 * stays the host's.
 */
import type { Redis } from "ioredis";
import { lazy } from "../lazy.ts";
import type { Coordination } from "../../../engine/coordination/coordination.ts";
import type { RedisContext } from "../coordination-context.ts";
import { redisLocks } from "./redis-locks.ts";
import { redisOneTimeCodes } from "./redis-one-time-codes.ts";
import { redisOpaqueTokens } from "./redis-opaque-tokens.ts";
import { redisRateLimiters } from "./redis-rate-limiters.ts";
import { redisTtlCache } from "./redis-ttl-cache.ts";

export function redisCoordination(ctx: RedisContext & { ownsConnection: boolean }): Coordination {
  const locks = lazy(() => redisLocks(ctx));
  const limiters = lazy(() => redisRateLimiters(ctx));
  const cache = lazy(() => redisTtlCache(ctx));
  const codes = lazy(() => redisOneTimeCodes(ctx, limiters.get()));
  const tokens = lazy(() => redisOpaqueTokens(ctx));
  return {
    backend: "redis",
    get locks() {
      return locks.get();
    },
    get limiters() {
      return limiters.get();
    },
    get cache() {
      return cache.get();
    },
    get codes() {
      return codes.get();
    },
    get tokens() {
      return tokens.get();
    },
    async ping() {
      await ctx.redis.ping();
    },
    async close() {
      await locks.built()?.close();
      if (ctx.ownsConnection) await closeQuietly(ctx.redis);
    },
  };
}

async function closeQuietly(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
