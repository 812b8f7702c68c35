/**
 * Picks the definition cache's payload provider from configuration alone.
 * Redis is reached through the same settings as coordination (REDIS_URL or
 * Sentinel); a host that already holds an ioredis connection hands it in and
 * keeps ownership: close() then leaves it open. With payload caching turned
 * off, every get is a miss and nothing is opened.
 */
import type { Redis } from "ioredis";
import type { TaskflowConfig } from "../../config/config.ts";
import type {
  CacheProvider,
  CacheWarnLog,
} from "../../engine/definition-cache/cache-provider-port.ts";
import { openCacheRedis } from "./cache-redis.ts";
import { memoryCacheProvider } from "./memory-cache-provider.ts";
import { redisCacheProvider } from "./redis-cache-provider.ts";

export type CacheProviderConfig = Pick<
  TaskflowConfig,
  | "definitionCache"
  | "definitionCacheEnabled"
  | "definitionCacheSliding"
  | "definitionCacheAbsolute"
  | "redisUrl"
  | "redisSentinels"
  | "redisSentinelName"
>;

export interface OpenCacheProviderOptions {
  /** A connection the host owns: used instead of opening one, and never closed here. */
  redis?: Redis | undefined;
  /** Where swallowed failures (Redis down, a corrupt payload) are reported, rate-limited. */
  log: CacheWarnLog;
}

export function openCacheProvider(
  config: CacheProviderConfig,
  options: OpenCacheProviderOptions,
): CacheProvider {
  if (!config.definitionCacheEnabled) return disabledCacheProvider(config.definitionCache);
  const defaults = {
    slidingMs: config.definitionCacheSliding,
    absoluteMs: config.definitionCacheAbsolute,
  };
  switch (config.definitionCache) {
    case "memory":
      return memoryCacheProvider({ defaults, log: options.log });
    case "redis": {
      if (options.redis !== undefined) {
        return redisCacheProvider({
          redis: options.redis,
          ownsConnection: false,
          defaults,
          log: options.log,
        });
      }
      const redis = openCacheRedis(config);
      return redisCacheProvider({ redis, ownsConnection: true, defaults, log: options.log });
    }
  }
}

/** WF_DEFINITION_CACHE_ENABLED=false: the read path keeps its shape, every read goes to the store. */
function disabledCacheProvider(kind: CacheProvider["kind"]): CacheProvider {
  return {
    kind,
    get: () => Promise.resolve({ hit: false }),
    set: () => Promise.resolve(),
    delete: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
