/**
 * Window arithmetic the SQL and Redis rate limiters share, and the checks of a
 * limiter's options (so a bad cap or window is the same Validation error on
 * both).
 *
 * Fixed windows start at multiples of their length (ms since the epoch), so
 * every node agrees where a window ends without talking to the others.
 *
 * The SQL sliding window is the weighted two-window estimate: the count of the
 * previous fixed window, weighted by how much of it the sliding window still
 * covers, plus the count of the current one. It assumes the previous window's
 * points were spread evenly; two integers per key is what makes it one
 * upsert of one row (see sql-rate-limiters.ts).
 */
import { taskflowError } from "../../domain/errors.ts";
import type {
  RateLimiterOptions,
  WindowKind,
} from "../../engine/coordination/rate-limiter-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "./check-input.ts";

export interface LimiterSpec {
  name: string;
  points: number;
  windowMs: number;
  window: WindowKind;
}

export function limiterSpec(options: RateLimiterOptions): LimiterSpec {
  checkKey("rate limiter name", options.name);
  checkPoints("rate limiter points", options.points);
  checkDuration("rate limiter window", options.windowMs);
  const window = options.window ?? "fixed";
  if (window !== "fixed" && window !== "sliding") {
    throw taskflowError("InvalidArgument", {
      detail: `rate limiter window must be fixed or sliding; got ${String(window)}`,
    });
  }
  return { name: options.name, points: options.points, windowMs: options.windowMs, window };
}

/** The checks of one consume call; resolves the default of 1 point. */
export function consumeInput(tenant: string, key: string, points: number | undefined): number {
  checkTenant(tenant);
  checkKey("rate limit key", key);
  const n = points ?? 1;
  checkPoints("points to consume", n);
  return n;
}

export function windowStart(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** How much of the previous fixed window a sliding window ending now still covers (1 → 0). */
export function previousWeight(now: number, start: number, windowMs: number): number {
  return Math.min(1, Math.max(0, (start + windowMs - now) / windowMs));
}

/** Ms until a refused fixed-window consume could pass: the window's end. */
export function fixedRetryAfter(now: number, start: number, windowMs: number): number {
  return clampRetry(start + windowMs - now, windowMs);
}

/**
 * Ms until the weighted estimate leaves room for `n` more: later in this
 * window when the previous window's share alone is in the way, else some way
 * into the next one. The estimate can take up to two windows to drain, but a
 * point taken now is out of any exact sliding window after one, so the hint
 * is capped at one window: a retry then may be refused again with a new hint.
 */
export function slidingRetryAfter(
  c: { prev: number; current: number; start: number },
  n: number,
  cap: number,
  now: number,
  windowMs: number,
): number {
  const room = cap - c.current - n;
  let at: number;
  if (room >= 0 && c.prev > 0) {
    at = c.start + windowMs - (room * windowMs) / c.prev;
  } else {
    const share = c.current > 0 ? Math.max(0, 1 - (cap - n) / c.current) : 0;
    at = c.start + windowMs + share * windowMs;
  }
  return clampRetry(Math.ceil(at - now), windowMs);
}

function clampRetry(ms: number, windowMs: number): number {
  return Math.min(windowMs, Math.max(1, Math.ceil(ms)));
}
