/**
 * A Redis connection of the definition cache's own (its payloads, its
 * revision signal), found through the same REDIS_URL or Sentinel settings as
 * coordination. Only for when the host handed none in; whoever opens it
 * closes it.
 */
import type { Redis } from "ioredis";
import type { TaskflowConfig } from "../../config/config.ts";
import { connectRedis } from "../coordination/open-coordination.ts";

export function openCacheRedis(
  config: Pick<TaskflowConfig, "redisUrl" | "redisSentinels" | "redisSentinelName">,
): Redis {
  return connectRedis({
    kind: "redis",
    keyPrefix: "",
    redisUrl: config.redisUrl,
    redisSentinel:
      config.redisSentinels.length > 0 && config.redisSentinelName !== null
        ? { name: config.redisSentinelName, hosts: config.redisSentinels }
        : null,
  });
}
