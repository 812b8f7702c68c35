/**
 * Coordination on Redis (ioredis): SET NX PX locks released by a
 * compare-and-delete script, native counters and TTLs. The connection is
 * closed by close() only when this module opened it; one the host handed in
 * stays the host's.
 */
import type { Redis } from "ioredis";
import { lazyCoordination } from "../lazy-coordination.ts";
import type { Coordination } from "../../../engine/coordination/coordination-port.ts";
import type { RedisContext } from "../coordination-context.ts";
import { redisLocks } from "./redis-locks.ts";
import { redisOneTimeCodes } from "./redis-one-time-codes.ts";
import { redisOpaqueTokens } from "./redis-opaque-tokens.ts";
import { redisRateLimiters } from "./redis-rate-limiters.ts";
import { redisTtlCache } from "./redis-ttl-cache.ts";

export interface RedisCoordinationOptions {
  readonly redis: Redis;
  /**
   * In front of every key; a function is asked when the first primitive is
   * built (the deployment id in it is read after the migration).
   */
  readonly keyPrefix: string | (() => string);
  readonly ownsConnection: boolean;
}

export function redisCoordination(o: RedisCoordinationOptions): Coordination {
  let built: RedisContext | undefined;
  const ctx = (): RedisContext =>
    (built ??= {
      redis: o.redis,
      keyPrefix: typeof o.keyPrefix === "string" ? o.keyPrefix : o.keyPrefix(),
    });
  return lazyCoordination({
    backend: "redis",
    locks: () => redisLocks(ctx()),
    limiters: () => redisRateLimiters(ctx()),
    cache: () => redisTtlCache(ctx()),
    codes: (limiters) => redisOneTimeCodes(ctx(), limiters),
    tokens: () => redisOpaqueTokens(ctx()),
    async ping() {
      await o.redis.ping();
    },
    closeRest: () => (o.ownsConnection ? closeQuietly(o.redis) : Promise.resolve()),
  });
}

async function closeQuietly(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
