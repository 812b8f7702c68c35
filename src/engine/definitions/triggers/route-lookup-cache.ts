/**
 * The hook lookup's cache: "method + tenant + path → what the route table
 * answers" (a trigger target, a 405's allowed methods, or none), remembered
 * per routes revision.
 *
 * - Node-local on purpose. A match in the route trie costs about 2 µs
 *   (`npm run bench -- definitions`: p99 17.9 µs); a Redis round trip costs
 *   100 µs or more on a LAN, so a shared cache would cost more than it saves,
 *   and every node holds the whole table anyway. What this cache saves is the
 *   decode and the trie walk of paths asked for again and again.
 * - Keyed by the routes revision the table was built at: a revision change
 *   makes every older lookup unreachable (nothing is deleted; the LRU bound
 *   and the expiry take the old entries out).
 * - A path with no trigger is cached too, as `{ kind: "none" }` — a cached
 *   none is a hit, distinct from a miss (`undefined`), so a client hammering
 *   a wrong path costs one trie walk per revision, not one per request.
 * - Sliding expiry: an entry ends after `slidingMs` without a read; each
 *   read pushes the end out again (lru-cache's ttl with updateAgeOnGet).
 * - Bounded: `maxEntries` (10,000 by default), and a path longer than
 *   MAX_CACHED_PATH is never cached, so keys stay small whatever clients send
 *   (10,000 × 256 chars ≈ 5 MB at most).
 */
import { LRUCache } from "lru-cache";
import type { RouteMatch } from "./route-table.ts";

export const DEFAULT_LOOKUP_ENTRIES = 10_000;
/** Longer paths are matched every time: caching them would let clients fill memory. */
export const MAX_CACHED_PATH = 256;

export interface RouteLookupCacheOptions {
  readonly maxEntries?: number | undefined;
  /** Ends an entry after this long without a read (WF_DEFINITION_CACHE_SLIDING). */
  readonly slidingMs: number;
}

export interface LookupKey {
  readonly revision: number;
  readonly tenantId: string;
  readonly method: string;
  /** The raw request path (before percent-decoding): two spellings are two entries. */
  readonly path: string;
}

export class RouteLookupCache {
  private readonly entries: LRUCache<string, RouteMatch>;

  constructor(options: RouteLookupCacheOptions) {
    this.entries = new LRUCache<string, RouteMatch>({
      max: options.maxEntries ?? DEFAULT_LOOKUP_ENTRIES,
      ...(options.slidingMs > 0 ? { ttl: options.slidingMs, updateAgeOnGet: true } : {}),
    });
  }

  /** The cached answer (a copy: its params are the caller's), or undefined on a miss. */
  get(k: LookupKey): RouteMatch | undefined {
    if (k.path.length > MAX_CACHED_PATH) return undefined;
    const found = this.entries.get(keyOf(k));
    if (found?.kind !== "match") return found;
    return { ...found, params: { ...found.params } };
  }

  set(k: LookupKey, match: RouteMatch): void {
    if (k.path.length > MAX_CACHED_PATH) return;
    this.entries.set(
      keyOf(k),
      match.kind === "match" ? { ...match, params: { ...match.params } } : match,
    );
  }

  get size(): number {
    return this.entries.size;
  }
}

// A newline cannot be in an HTTP method, a header value (the tenant) or a raw request path.
const keyOf = (k: LookupKey) => `${k.revision}\n${k.method}\n${k.tenantId}\n${k.path}`;
