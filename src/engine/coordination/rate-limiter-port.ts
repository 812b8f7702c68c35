/**
 * The rate limiter port: counters with a cap, "at most N points per window",
 * shared by every node that uses the same backend. One of the five
 * coordination primitives (coordination-port.ts).
 *
 * Glossary
 * - point: one unit a call takes (a request, a login attempt); a call may take
 *   several.
 * - window: the time over which points are counted. Fixed windows start at
 *   multiples of their length (the same on every node and backend); a sliding
 *   window always ends now.
 * - cap: the points allowed per window; a consume that would pass it takes
 *   nothing and says how long until enough points are back (retryAfterMs).
 */

export type WindowKind = "fixed" | "sliding";

export interface RateLimiterOptions {
  /** Names the limiter inside the key prefix, e.g. "api" or "otp-issue". */
  name: string;
  /** Points allowed per window (> 0). */
  points: number;
  /** Window length in ms (> 0). */
  windowMs: number;
  /** Default fixed. */
  window?: WindowKind;
}

export interface ConsumeResult {
  /** True when the points were taken; false when they would exceed the cap (nothing was taken). */
  allowed: boolean;
  /** Points left in the current window after this call. */
  remaining: number;
  /** When allowed is false: ms until enough points are back; 0 otherwise. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /**
   * Atomically takes `points` (default 1, > 0) for `key` inside `tenant`.
   * Rejects with UnavailableError when the backend cannot be reached.
   */
  consume(tenant: string, key: string, points?: number): Promise<ConsumeResult>;
  /** Forgets the key's count (e.g. after a successful login). */
  reset(tenant: string, key: string): Promise<void>;
}

export interface RateLimiters {
  limiter(options: RateLimiterOptions): RateLimiter;
  /**
   * Removes up to `maxEntries` counters whose windows have all passed (they
   * read as zero anyway); resolves with how many it removed. Backends that
   * expire counters themselves (Redis) remove none here. Meant for one node's
   * periodic cleanup, like TtlCache.cleanup.
   */
  cleanup(maxEntries: number): Promise<number>;
}
