/**
 * Bounds on what callers may hand to the coordination ports. Every
 * implementation checks them the same way (check-input.ts), so a bad name is
 * the same Validation error on every backend, never a driver error.
 */
/** Names of locks, counters and cache keys, in characters; longer ones are refused. */
export const MAX_COORDINATION_KEY_LENGTH = 512;
/** The longest lease, TTL or window: 30 days. */
export const MAX_COORDINATION_TTL_MS = 30 * 24 * 3600 * 1000;
/** Cached values, serialised as JSON, in bytes. */
export const MAX_CACHE_VALUE_BYTES = 1024 * 1024;
/** Locks: how long acquire() waits for a held lock unless told (0: try once). */
export const DEFAULT_LOCK_WAIT_MS = 0;
/** Locks: how long a lock stays held without extend() unless told. */
export const DEFAULT_LOCK_LEASE_MS = 30_000;
