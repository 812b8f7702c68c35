/**
 * The definition cache's settings: which provider keeps payloads
 * (WF_DEFINITION_CACHE), whether payloads are cached at all
 * (WF_DEFINITION_CACHE_ENABLED), the key prefix and the default sliding and
 * absolute expiry. Redis is found through the same REDIS_URL / REDIS_SENTINELS
 * as coordination; the cross-checks run after every key parsed on its own.
 */
import {
  CacheProviderKinds,
  type CacheProviderKind,
} from "../engine/definition-cache/cache-provider-port.ts";
import {
  CacheConsistencyModes,
  type CacheConsistencyMode,
} from "../engine/definition-cache/cache-consistency.ts";
import { ConfigError, InvalidValue } from "./config-error.ts";
import type { TaskflowConfig } from "./config.ts";
import { parseWholeMs } from "./parse-values.ts";

/** A week: far longer than any useful copy of a definition; a typo in minutes stays visible. */
const MAX_MS = 7 * 24 * 60 * 60 * 1000;

export function parseDefinitionCacheProvider(value: unknown): CacheProviderKind {
  const text = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (typeof text === "string" && (CacheProviderKinds as readonly string[]).includes(text)) {
    return text as CacheProviderKind;
  }
  throw new InvalidValue(
    `${JSON.stringify(value)} is not a cache provider (one of ${CacheProviderKinds.join(", ")})`,
  );
}

export function parseCacheConsistency(value: unknown): CacheConsistencyMode {
  const text = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (typeof text === "string" && (CacheConsistencyModes as readonly string[]).includes(text)) {
    return text as CacheConsistencyMode;
  }
  throw new InvalidValue(
    `${JSON.stringify(value)} is not a consistency mode (one of ${CacheConsistencyModes.join(", ")})`,
  );
}

/** The bounded mode's poll: 50 ms (a query per node 20 times a second) to a minute. */
export function parseCachePoll(value: unknown): number {
  return parseWholeMs(value, 50, 60_000);
}

/** A publish's wait for its definition's lock: 0 (try once) to a minute. */
export function parseLockTimeout(value: unknown): number {
  return parseWholeMs(value, 0, 60_000);
}

/** Milliseconds (a number or a string of digits), 0 – one week; 0 or "off": this expiry is not used. */
export function parseCacheDuration(value: unknown): number {
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (text === "off") return 0;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_MS) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of milliseconds between 0 and ${MAX_MS} (or off)`,
    );
  }
  return n;
}

/** The checks between settings, after each parsed on its own. */
export function assertDefinitionCacheSettings(
  c: Pick<
    TaskflowConfig,
    | "definitionCache"
    | "definitionCacheSliding"
    | "definitionCacheAbsolute"
    | "redisUrl"
    | "redisSentinels"
    | "coordination"
    | "keyPrefix"
    | "definitionCachePrefix"
  >,
): void {
  const issues: string[] = [];
  // Checked even with WF_DEFINITION_CACHE_ENABLED=false: an explicit choice that
  // cannot work is a mistake to show now, not when caching is turned back on.
  if (c.definitionCache === "redis" && c.redisUrl === null && c.redisSentinels.length === 0) {
    issues.push(
      "WF_DEFINITION_CACHE is redis but neither REDIS_URL nor REDIS_SENTINELS is set: " +
        "set one, or choose WF_DEFINITION_CACHE=memory",
    );
  }
  // Both on the one Redis REDIS_URL names: a coordination key that starts with the
  // cache's prefix sits among payloads, where deleting the cache's keys (a flush
  // by prefix) would take locks and counters with it.
  if (
    c.definitionCache === "redis" &&
    c.coordination === "redis" &&
    c.keyPrefix.startsWith(c.definitionCachePrefix)
  ) {
    issues.push(
      `WF_KEY_PREFIX ${JSON.stringify(c.keyPrefix)} starts with WF_DEFINITION_CACHE_PREFIX ` +
        `${JSON.stringify(c.definitionCachePrefix)} while coordination and the definition cache ` +
        "share one Redis: locks would sit among cached payloads; give the cache a prefix of its " +
        "own (e.g. the default taskflow:defs:)",
    );
  }
  if (c.definitionCacheSliding === 0 && c.definitionCacheAbsolute === 0) {
    issues.push(
      "WF_DEFINITION_CACHE_SLIDING and WF_DEFINITION_CACHE_ABSOLUTE are both off: " +
        "entries would never expire; set one of them above 0",
    );
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
