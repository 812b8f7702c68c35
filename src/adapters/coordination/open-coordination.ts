/**
 * Picks the coordination backend from configuration alone: `sql` (the
 * store's own database; the default), `redis` (REDIS_URL or Sentinel) or
 * `memory` (one process). Nothing falls back to another backend: a Redis
 * that cannot be reached is an error, never a silent switch to memory.
 */
import { Redis } from "ioredis";
import type { Coordination, CoordinationKind } from "../../engine/coordination/coordination.ts";
import type { SqlContext } from "./coordination-context.ts";
import { memoryCoordination } from "./memory/memory-coordination.ts";
import { redisCoordination } from "./redis/redis-coordination.ts";
import { sqlCoordination } from "./sql/sql-coordination.ts";

export interface RedisSentinel {
  /** The master's name as the sentinels know it. */
  name: string;
  /** "host:port" of each sentinel. */
  hosts: readonly { host: string; port: number }[];
}

export interface CoordinationOptions {
  kind: CoordinationKind;
  keyPrefix: string;
  /** Required for `sql`: the store's connection (see Database.coordinationContext). */
  sql?: Omit<SqlContext, "keyPrefix"> | undefined;
  redisUrl?: string | null | undefined;
  redisSentinel?: RedisSentinel | null | undefined;
  /** A connection the host owns: used instead of opening one, and never closed here. */
  redis?: Redis | undefined;
}

export function openCoordination(options: CoordinationOptions): Coordination {
  const keyPrefix = options.keyPrefix;
  switch (options.kind) {
    case "memory":
      return memoryCoordination({ keyPrefix });
    case "sql":
      if (options.sql === undefined) throw new Error("sql coordination needs the store's database");
      return sqlCoordination({ ...options.sql, keyPrefix });
    case "redis": {
      if (options.redis !== undefined) {
        return redisCoordination({ redis: options.redis, keyPrefix, ownsConnection: false });
      }
      return redisCoordination({ redis: connectRedis(options), keyPrefix, ownsConnection: true });
    }
  }
}

/**
 * lazyConnect: nothing is dialled until the first command, like the store.
 * maxRetriesPerRequest 1 and, once the first connection was ready, no offline
 * queue: while Redis is down a command fails at once (the caller decides: 503,
 * or fail open for rate limits) instead of queueing in memory for as long as
 * the outage lasts.
 */
export function connectRedis(options: CoordinationOptions): Redis {
  const common = {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    // Until the first connection is ready, commands wait for it: without a
    // queue, lazyConnect's first command (which starts the dial) would fail.
    // maxRetriesPerRequest still fails them after a retry when Redis is down.
    enableOfflineQueue: true,
    connectTimeout: 2000,
  };
  const redis = options.redisSentinel
    ? new Redis({
        ...common,
        name: options.redisSentinel.name,
        sentinels: options.redisSentinel.hosts.map((h) => ({ host: h.host, port: h.port })),
      })
    : options.redisUrl
      ? new Redis(options.redisUrl, common)
      : undefined;
  if (redis === undefined) {
    throw new Error("redis coordination needs REDIS_URL or Sentinel settings");
  }
  redis.once("ready", () => {
    redis.options.enableOfflineQueue = false;
  });
  return redis;
}
