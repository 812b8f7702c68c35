/**
 * The definition cache's payload port: where copies of definition reads
 * (a definition, a page of them, a trigger list) are kept between requests.
 * One interface, one adapter per place (memory on each node, Redis shared by
 * all nodes), chosen by configuration; the read path never knows which.
 *
 * Glossary
 * - payload: the cached copy, a JSON value (or null). It is never the source
 *   of truth: the store is; a payload only saves a trip to it.
 * - hit / miss: `get` found an entry (hit, whatever its value) or did not.
 * - cached null: a hit whose value is null, e.g. "no definition with this id"
 *   remembered so the store is not asked again. It is not a miss: a miss means
 *   "ask the store", a cached null means "the store said nothing is there".
 * - sliding expiry: an entry ends `slidingMs` after its last read (or write);
 *   every hit pushes the end out again.
 * - absolute expiry (deadline): an entry ends `absoluteMs` after it was
 *   written, however often it is read. With both, a read extends the sliding
 *   window but never past the deadline.
 * - revision: a number that grows with every committed definition change; it
 *   is part of every key (cache-key.ts), so a change makes all older entries
 *   unreachable instead of deleting them one by one.
 *
 * Failures: a provider never fails its caller for a cache problem. A payload
 * that does not parse as JSON, or a shared backend that cannot be reached, is
 * a (rate-limited) warning and a miss on `get`, a no-op on `set` and `delete`.
 * There is no fallback from a shared provider to a local copy: two nodes
 * serving different copies is what a shared cache exists to prevent.
 */

export const CacheProviderKinds = ["memory", "redis"] as const;
export type CacheProviderKind = (typeof CacheProviderKinds)[number];

export type CacheLookup = { readonly hit: true; readonly value: unknown } | { readonly hit: false };

export interface CacheEntryOptions {
  /** Idle time after which the entry ends; undefined: the provider's default; 0: no sliding expiry. */
  slidingMs?: number | undefined;
  /** Time after the write at which the entry ends; undefined: the provider's default; 0: none. */
  absoluteMs?: number | undefined;
}

export interface CacheProvider {
  readonly kind: CacheProviderKind;
  /** A hit extends the entry's sliding window (capped by its deadline). */
  get(key: string): Promise<CacheLookup>;
  /**
   * Replaces the entry. `value` must be JSON (a value JSON.stringify cannot
   * write is the caller's bug and throws TypeError); null is cached as null.
   */
  set(key: string, value: unknown, options?: CacheEntryOptions): Promise<void>;
  delete(key: string): Promise<void>;
  /** Releases what the provider opened itself; a connection the host handed in stays open. */
  close(): Promise<void>;
}

/** Where providers report what they swallow; pino's logger fits. */
export interface CacheWarnLog {
  warn(fields: Record<string, unknown>, message: string): void;
}
