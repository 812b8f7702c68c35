/**
 * The TTL cache on Redis: one string key per entry, expiry by Redis itself
 * (SET … PX), so an expired entry is simply gone; setIfAbsent is SET NX and
 * compareAndSet a script (GET, compare the JSON text, SET), which Redis runs
 * without interleaving another client's command. cleanup() has nothing to do.
 *
 * Key: `<prefix>cache:<tenant>:<key>`; a tenant id has no ':' (letters,
 * digits, '.', '_', '-'), so the key after it cannot be mistaken for another
 * tenant's.
 */
import type { Redis } from "ioredis";
import type { JsonValue, TtlCache } from "../../../engine/coordination/ttl-cache-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { RedisContext } from "../coordination-context.ts";
import { jsonText } from "../json-text.ts";
import { luaScript, redisCall, runScript } from "./redis-calls.ts";

const COMPARE_AND_SET = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0`);

export function redisTtlCache(ctx: RedisContext): TtlCache {
  const keyOf = (tenant: string, key: string) => {
    checkTenant(tenant);
    checkKey("cache key", key);
    return `${ctx.keyPrefix}cache:${tenant}:${key}`;
  };
  const call = <T>(fn: (r: Redis) => Promise<T>) => redisCall(ctx.redis, fn);

  return {
    async get(tenant, key) {
      const k = keyOf(tenant, key);
      const text = await call((r) => r.get(k));
      return text === null ? undefined : (JSON.parse(text) as JsonValue);
    },

    async set(tenant, key, value, ttlMs) {
      const k = keyOf(tenant, key);
      const text = jsonText(value);
      checkDuration("cache TTL", ttlMs);
      await call((r) => r.set(k, text, "PX", ttlMs));
    },

    async setIfAbsent(tenant, key, value, ttlMs) {
      const k = keyOf(tenant, key);
      const text = jsonText(value);
      checkDuration("cache TTL", ttlMs);
      return (await call((r) => r.set(k, text, "PX", ttlMs, "NX"))) === "OK";
    },

    async delete(tenant, key) {
      const k = keyOf(tenant, key);
      return (await call((r) => r.del(k))) === 1;
    },

    async compareAndSet(tenant, key, expected, next, ttlMs) {
      const k = keyOf(tenant, key);
      const expectedText = jsonText(expected);
      const nextText = jsonText(next);
      checkDuration("cache TTL", ttlMs);
      const done = await call((r) =>
        runScript(r, COMPARE_AND_SET, [k], [expectedText, nextText, ttlMs]),
      );
      return done === 1;
    },

    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      // Redis deletes expired keys itself (on access and in its active expiry cycle).
      return Promise.resolve(0);
    },
  };
}
