/**
 * The connections a host hands to createTaskflow, checked against the
 * configuration before anything is opened. A connection handed in for a
 * backend the configuration did not choose is two choices that contradict
 * each other: the host believes TaskFlow uses its Redis, the configuration
 * says it does not. Ignoring either would leave the host with a cache (or
 * coordination) somewhere other than where it thinks, so the start fails with
 * a message naming both. A backend left at its default counts as chosen too —
 * the message then says that it was never set — since the default is what
 * would silently run.
 *
 * Not conflicts: WF_DEFINITION_CACHE=redis with WF_DEFINITION_CACHE_ENABLED=false
 * (payloads off, the choice of provider stands), or one connection handed in
 * for both the coordination and the cache.
 */
import { ConfigError } from "../config/config-error.ts";
import { describeSetting } from "../config/config-sources.ts";
import type { TaskflowConfig } from "../config/config.ts";
import type { RedisConnection } from "./redis-connection.ts";

export interface HostConnections {
  /** createTaskflow's `redis`: for WF_COORDINATION=redis. */
  readonly redis?: RedisConnection | undefined;
  /** createTaskflow's `definitionCacheRedis`: for WF_DEFINITION_CACHE=redis. */
  readonly definitionCacheRedis?: RedisConnection | undefined;
}

/** Throws ConfigError naming the option and the setting it contradicts; does no I/O. */
export function assertHostConnections(config: TaskflowConfig, host: HostConnections): void {
  const issues: string[] = [];
  if (host.definitionCacheRedis !== undefined && config.definitionCache !== "redis") {
    issues.push(
      `the createTaskflow option definitionCacheRedis hands in a Redis connection for the ` +
        `definition cache, but ${describeSetting(config, "definitionCache", "WF_DEFINITION_CACHE")} ` +
        `keeps the cache elsewhere: set WF_DEFINITION_CACHE=redis, or do not hand the connection in`,
    );
  }
  if (host.redis !== undefined && config.coordination !== "redis") {
    issues.push(
      `the createTaskflow option redis hands in a Redis connection for coordination, but ` +
        `${describeSetting(config, "coordination", "WF_COORDINATION")} keeps coordination ` +
        `elsewhere: set WF_COORDINATION=redis, or do not hand the connection in`,
    );
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
