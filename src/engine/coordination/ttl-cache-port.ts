/**
 * A key-value cache with expiry. Values are JSON; an expired entry reads as
 * absent (lazy expiry), and cleanup() removes expired entries in bounded
 * batches (see the coordination's background jobs).
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
