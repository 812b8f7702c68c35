/**
 * The per-node provider: an LRU of JSON texts with their own expiry. Each
 * node has its own copy; nothing is shared.
 *
 * lru-cache's ttl is absolute (set on write, extended only by a write), so
 * the expiry lives in each entry instead: `expiresAt` = min(last touch +
 * sliding, deadline), checked and moved on every read. An expired entry is
 * dropped when read; entries never read again leave through the LRU bound.
 *
 * The text, not the object, is kept: a caller that mutates what `get` gave
 * it must not change what the next caller reads, and the memory provider then
 * behaves exactly like the shared one (a value that does not survive JSON is
 * refused here too).
 */
import { LRUCache } from "lru-cache";
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
import { warnLimiter } from "./warn-limiter.ts";

export interface MemoryCacheEntry {
  text: string;
  slidingMs: number;
  /** Epoch ms; Infinity when the entry has no absolute expiry. */
  deadline: number;
  expiresAt: number;
}

export const DEFAULT_MEMORY_MAX_ENTRIES = 10_000;

export interface MemoryCacheOptions {
  defaults: CacheExpiry;
  log: CacheWarnLog;
  maxEntries?: number | undefined;
  /** The clock; tests pass their own. */
  now?: (() => number) | undefined;
  /** For tests that plant a corrupt entry; otherwise the provider makes its own. */
  entries?: LRUCache<string, MemoryCacheEntry> | undefined;
}

const MISS: CacheLookup = { hit: false };

export function memoryCacheProvider(options: MemoryCacheOptions): CacheProvider {
  const now = options.now ?? Date.now;
  const warn = warnLimiter(options.log);
  const entries =
    options.entries ??
    new LRUCache<string, MemoryCacheEntry>({
      max: options.maxEntries ?? DEFAULT_MEMORY_MAX_ENTRIES,
    });

  return {
    kind: "memory",

    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return Promise.resolve(MISS);
      const t = now();
      if (t >= entry.expiresAt) {
        entries.delete(key);
        return Promise.resolve(MISS);
      }
      const parsed = parsePayload(entry.text);
      if (!parsed.ok) {
        entries.delete(key);
        warn("corrupt-payload", { key }, "definition cache: corrupt payload dropped (a miss)");
        return Promise.resolve(MISS);
      }
      if (entry.slidingMs > 0) entry.expiresAt = Math.min(t + entry.slidingMs, entry.deadline);
      return Promise.resolve({ hit: true, value: parsed.value });
    },

    set(key, value, entryOptions) {
      // In a promise: a caller's mistake rejects, as on Redis, instead of throwing at the call.
      return Promise.resolve().then(() => {
        const text = payloadText(value);
        const { slidingMs, absoluteMs } = resolveExpiry(entryOptions, options.defaults);
        const t = now();
        const deadline = absoluteMs > 0 ? t + absoluteMs : Infinity;
        const expiresAt = slidingMs > 0 ? Math.min(t + slidingMs, deadline) : deadline;
        entries.set(key, { text, slidingMs, deadline, expiresAt });
      });
    },

    delete(key) {
      entries.delete(key);
      return Promise.resolve();
    },

    close() {
      entries.clear();
      return Promise.resolve();
    },
  };
}
