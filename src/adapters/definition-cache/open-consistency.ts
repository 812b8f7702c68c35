/**
 * Picks the consistency mode (WF_DEFINITION_CACHE_CONSISTENCY) and, for the
 * bounded mode, how a node hears that the ledger moved:
 *
 * - the store is PostgreSQL → LISTEN/NOTIFY on the store's own database;
 * - else the definition cache or coordination is on Redis → Redis pub/sub
 *   (publishing over the host's connection when it handed one in);
 * - else (MariaDB or SQLite without Redis) → no push: the poll alone.
 *
 * Nothing is opened until start(): the LISTEN connection and the Redis
 * subscriber are dialled there, a Redis publisher of our own on first use.
 */
import type { Redis } from "ioredis";
import type { Database } from "../store/open-database.ts";
import type { TaskflowConfig } from "../../config/config.ts";
import { boundedConsistency } from "../../engine/definition-cache/bounded-consistency.ts";
import type { CacheConsistency } from "../../engine/definition-cache/cache-consistency.ts";
import type { CacheWarnLog } from "../../engine/definition-cache/cache-provider-port.ts";
import type { RevisionSignal } from "../../engine/definition-cache/revision-signal-port.ts";
import { strictConsistency } from "../../engine/definition-cache/strict-consistency.ts";
import { openCacheRedis } from "./cache-redis.ts";
import { pgRevisionSignal } from "./pg-revision-signal.ts";
import { pollOnlyRevisionSignal } from "./poll-only-revision-signal.ts";
import { redisRevisionSignal, revisionChannel } from "./redis-revision-signal.ts";

export interface OpenConsistencyOptions {
  /** A connection the host owns; the bounded mode's Redis publisher may share it. */
  redis?: Redis | undefined;
  log: CacheWarnLog;
}

export type ConsistencyConfig = Pick<
  TaskflowConfig,
  | "definitionCacheConsistency"
  | "definitionCachePoll"
  | "definitionCache"
  | "definitionCachePrefix"
  | "coordination"
  | "redisUrl"
  | "redisSentinels"
  | "redisSentinelName"
>;

export type ConsistencyDatabase = Pick<
  Database,
  "cacheLedger" | "backend" | "coordinationContext" | "deploymentId"
>;

export function openConsistency(
  config: ConsistencyConfig,
  database: ConsistencyDatabase,
  options: OpenConsistencyOptions,
): CacheConsistency {
  if (config.definitionCacheConsistency !== "bounded") {
    return strictConsistency(database.cacheLedger);
  }
  return boundedConsistency({
    ledger: database.cacheLedger,
    signal: revisionSignalFor(config, database, options),
    pollMs: config.definitionCachePoll,
    log: options.log,
  });
}

/** The bounded mode's signal for this deployment (see the header). */
export function revisionSignalFor(
  config: Omit<ConsistencyConfig, "definitionCacheConsistency" | "definitionCachePoll">,
  database: ConsistencyDatabase,
  options: OpenConsistencyOptions,
): RevisionSignal {
  if (database.coordinationContext.dialect.listenNotify) {
    return pgRevisionSignal({
      url: database.coordinationContext.databaseUrl,
      db: database.coordinationContext.db,
      log: options.log,
    });
  }
  if (config.definitionCache === "redis" || config.coordination === "redis") {
    // Asked at start(), after the migration read the deployment id.
    const channel = () => revisionChannel(config.definitionCachePrefix, database.deploymentId());
    if (options.redis !== undefined) {
      return redisRevisionSignal({
        redis: options.redis,
        ownsConnection: false,
        channel,
        log: options.log,
      });
    }
    const redis = openCacheRedis(config);
    return redisRevisionSignal({ redis, ownsConnection: true, channel, log: options.log });
  }
  return pollOnlyRevisionSignal();
}
