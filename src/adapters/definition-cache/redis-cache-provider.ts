/**
 * The shared provider: every node reads and writes the same entries in Redis
 * (layout and time in redis-cache-scripts.ts). A get is one script round trip
 * that also extends the entry; a set is one.
 *
 * Redis is an optimisation here, never a dependency: any error talking to it
 * is a warning (at most one per kind per 10 s) and a miss, or a no-op for set
 * and delete. The read path then asks the store, which is the truth; nothing
 * falls back to a copy in this process, which other nodes could not see.
 */
import type { Redis } from "ioredis";
import {
  parsePayload,
  payloadText,
  resolveExpiry,
  type CacheExpiry,
} from "../../engine/definition-cache/cache-expiry.ts";
import type {
  CacheLookup,
  CacheProvider,
  CacheWarnLog,
} from "../../engine/definition-cache/cache-provider-port.ts";
import { redisCall, runScript } from "../coordination/redis/redis-calls.ts";
import { GET_AND_TOUCH, SET_ENTRY } from "./redis-cache-scripts.ts";
import { warnLimiter, type Warn } from "./warn-limiter.ts";

export interface RedisCacheOptions {
  redis: Redis;
  /** false: the host handed the connection in and closes it itself. */
  ownsConnection: boolean;
  defaults: CacheExpiry;
  log: CacheWarnLog;
}

const MISS: CacheLookup = { hit: false };

export function redisCacheProvider(options: RedisCacheOptions): CacheProvider {
  const { redis } = options;
  const warn = warnLimiter(options.log);
  const attempt = <T>(kind: string, fn: (r: Redis) => Promise<T>) =>
    swallow(warn, kind, () => redisCall(redis, fn));

  return {
    kind: "redis",

    async get(key) {
      const read = await attempt("redis-get", (r) => runScript(r, GET_AND_TOUCH, [key], []));
      if (!read.ok || typeof read.value !== "string") return MISS;
      const parsed = parsePayload(read.value);
      if (parsed.ok) return { hit: true, value: parsed.value };
      warn("corrupt-payload", { key }, "definition cache: corrupt payload dropped (a miss)");
      await attempt("redis-delete", (r) => r.del(key));
      return MISS;
    },

    async set(key, value, entryOptions) {
      // The caller's mistakes throw before Redis is involved.
      const text = payloadText(value);
      const { slidingMs, absoluteMs } = resolveExpiry(entryOptions, options.defaults);
      await attempt("redis-set", (r) =>
        runScript(r, SET_ENTRY, [key], [text, slidingMs, absoluteMs]),
      );
    },

    async delete(key) {
      await attempt("redis-delete", (r) => r.del(key));
    },

    async close() {
      if (!options.ownsConnection) return;
      try {
        await redis.quit();
      } catch {
        // Already closed, or Redis is down: either way nothing is left to release.
        redis.disconnect();
      }
    },
  };
}

async function swallow<T>(
  warn: Warn,
  kind: string,
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false }> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    // redisCall wraps transport failures; the underlying reason is what an operator needs.
    const cause = (e as Error).cause instanceof Error ? (e as Error).cause : e;
    warn(kind, { cause: (cause as Error).message }, `definition cache: ${kind} failed; ignored`);
    return { ok: false };
  }
}
