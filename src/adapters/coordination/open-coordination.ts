/**
 * Picks the coordination backend from configuration alone: `sql` (the
 * store's own database; the default), `redis` (REDIS_URL or Sentinel) or
 * `memory` (one process). Nothing falls back to another backend: a Redis
 * that cannot be reached is an error, never a silent switch to memory.
 */
import type { Redis } from "ioredis";
import { redisDriver } from "../drivers.ts";
import { deploymentKeySpace } from "../../domain/deployment-id.ts";
import type {
  Coordination,
  CoordinationKind,
} from "../../engine/coordination/coordination-port.ts";
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
  /**
   * The deployment's identity (src/domain/deployment-id.ts), asked when the
   * first primitive is built: with it, Redis keys are
   * `<keyPrefix><deployment id>:…`, so deployments sharing a Redis never
   * share a key. SQL and memory ignore it: their keys live in the
   * deployment's own database (MariaDB's server-wide lock names carry the
   * database's name) or process.
   */
  deployment?: (() => string) | undefined;
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
      const deployment = options.deployment;
      const space = deployment ? () => deploymentKeySpace(keyPrefix, deployment()) : keyPrefix;
      if (options.redis !== undefined) {
        return redisCoordination({ redis: options.redis, keyPrefix: space, ownsConnection: false });
      }
      return redisCoordination({
        redis: connectRedis(options),
        keyPrefix: space,
        ownsConnection: true,
      });
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
    // Commands issued in the same event-loop turn leave in one write: with 32
    // requests in flight a node sends a few packets per turn instead of 32.
    enableAutoPipelining: true,
  };
  const { Redis } = redisDriver();
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
  // Every command that fails rejects its caller with UnavailableError, which the
  // caller logs or answers as 503. Without a listener ioredis would also print
  // each reconnection error to stderr, once per retry, for as long as Redis is down.
  redis.on("error", () => undefined);
  return redis;
}
