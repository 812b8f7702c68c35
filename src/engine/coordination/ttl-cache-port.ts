/**
 * The TTL cache port: a key-value cache with expiry, shared by the nodes on
 * one backend. One of the five coordination primitives (coordination-port.ts).
 *
 * Glossary
 * - entry: a JSON value under (tenant, key), with a time to live (ttlMs).
 * - lazy expiry: an expired entry reads as absent at once, but its row or key
 *   stays until cleanup() removes it in bounded batches (the coordination's
 *   background jobs), so no read ever waits for a delete.
 * - compare-and-set: a write that happens only while the current value equals
 *   an expected one (by its JSON text), so two nodes updating one entry cannot
 *   both win.
 */
export type JsonValue =
  null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

export interface TtlCache {
  /** The value, or undefined when absent or expired. */
  get(tenant: string, key: string): Promise<JsonValue | undefined>;
  set(tenant: string, key: string, value: JsonValue, ttlMs: number): Promise<void>;
  /** Sets only when absent (or expired); true when this call set it. */
  setIfAbsent(tenant: string, key: string, value: JsonValue, ttlMs: number): Promise<boolean>;
  /** True when an unexpired entry was removed. */
  delete(tenant: string, key: string): Promise<boolean>;
  /**
   * Replaces the value only when the current one deep-equals `expected` (by
   * its JSON text); true when this call replaced it.
   */
  compareAndSet(
    tenant: string,
    key: string,
    expected: JsonValue,
    next: JsonValue,
    ttlMs: number,
  ): Promise<boolean>;
  /** Removes up to `maxEntries` expired entries; resolves with how many it removed. */
  cleanup(maxEntries: number): Promise<number>;
}
