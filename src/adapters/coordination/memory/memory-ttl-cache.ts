/**
 * The TTL cache inside one process. Values are kept as their JSON text, so a
 * caller that mutates what it stored or read never changes the cached copy,
 * and compare-and-set compares texts exactly as the SQL and Redis backends do.
 */
import type { JsonValue, TtlCache } from "../../../engine/coordination/ttl-cache-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { jsonText } from "../json-text.ts";

interface Entry {
  text: string;
  expiresAt: number;
}

export function memoryTtlCache(ctx: MemoryContext): TtlCache {
  const entries = new Map<string, Entry>();
  const idOf = (tenant: string, key: string) => {
    checkTenant(tenant);
    checkKey("cache key", key);
    return `${ctx.keyPrefix}${tenant}\u0000${key}`;
  };
  const live = (id: string, now = Date.now()): Entry | undefined => {
    const e = entries.get(id);
    if (e !== undefined && e.expiresAt <= now) {
      entries.delete(id);
      return undefined;
    }
    return e;
  };
  const put = (id: string, value: JsonValue, ttlMs: number) => {
    entries.set(id, { text: jsonText(value), expiresAt: Date.now() + ttlMs });
  };

  return {
    get(tenant, key) {
      const e = live(idOf(tenant, key));
      return Promise.resolve(e === undefined ? undefined : (JSON.parse(e.text) as JsonValue));
    },
    set(tenant, key, value, ttlMs) {
      const id = idOf(tenant, key);
      checkDuration("ttlMs", ttlMs);
      put(id, value, ttlMs);
      return Promise.resolve();
    },
    setIfAbsent(tenant, key, value, ttlMs) {
      const id = idOf(tenant, key);
      checkDuration("ttlMs", ttlMs);
      const text = jsonText(value);
      if (live(id) !== undefined) return Promise.resolve(false);
      entries.set(id, { text, expiresAt: Date.now() + ttlMs });
      return Promise.resolve(true);
    },
    delete(tenant, key) {
      const id = idOf(tenant, key);
      const had = live(id) !== undefined;
      entries.delete(id);
      return Promise.resolve(had);
    },
    compareAndSet(tenant, key, expected, next, ttlMs) {
      const id = idOf(tenant, key);
      checkDuration("ttlMs", ttlMs);
      const nextText = jsonText(next);
      const e = live(id);
      if (e === undefined || e.text !== jsonText(expected)) return Promise.resolve(false);
      entries.set(id, { text: nextText, expiresAt: Date.now() + ttlMs });
      return Promise.resolve(true);
    },
    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      const now = Date.now();
      let removed = 0;
      for (const [id, e] of entries) {
        if (removed >= maxEntries) break;
        if (e.expiresAt <= now) {
          entries.delete(id);
          removed++;
        }
      }
      return Promise.resolve(removed);
    },
  };
}
