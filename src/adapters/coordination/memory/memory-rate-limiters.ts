/**
 * Rate limiters inside one process. Fixed windows start with a key's first
 * point (as rate-limiter-flexible's do on every backend); sliding windows keep
 * the time of every point taken in the last window (a sliding log: exact, and
 * cheap at the caps a single process sees).
 */
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiterOptions,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";

export function memoryRateLimiters(ctx: MemoryContext): RateLimiters {
  return {
    limiter(options) {
      checkKey("limiter name", options.name);
      checkPoints("points", options.points);
      checkDuration("windowMs", options.windowMs);
      const scope = `${ctx.keyPrefix}${options.name}\u0000`;
      return options.window === "sliding"
        ? new SlidingLog(scope, options)
        : new FixedWindow(scope, options);
    },
  };
}

abstract class MemoryLimiter<Entry> implements RateLimiter {
  protected readonly entries = new Map<string, Entry>();
  constructor(
    private readonly scope: string,
    protected readonly options: RateLimiterOptions,
  ) {}

  consume(tenant: string, key: string, points = 1): Promise<ConsumeResult> {
    checkTenant(tenant);
    checkKey("limiter key", key);
    checkPoints("points", points);
    return Promise.resolve(this.take(`${this.scope}${tenant}\u0000${key}`, points, Date.now()));
  }

  reset(tenant: string, key: string): Promise<void> {
    checkTenant(tenant);
    checkKey("limiter key", key);
    this.entries.delete(`${this.scope}${tenant}\u0000${key}`);
    return Promise.resolve();
  }

  protected abstract take(id: string, points: number, now: number): ConsumeResult;
}

class FixedWindow extends MemoryLimiter<{ start: number; used: number }> {
  protected take(id: string, points: number, now: number): ConsumeResult {
    const { points: cap, windowMs } = this.options;
    let e = this.entries.get(id);
    if (e === undefined || now - e.start >= windowMs) {
      e = { start: now, used: 0 };
      this.entries.set(id, e);
      this.sweep(now);
    }
    const ends = e.start + windowMs - now;
    if (e.used + points > cap) {
      return { allowed: false, remaining: cap - e.used, retryAfterMs: Math.max(1, ends) };
    }
    e.used += points;
    return { allowed: true, remaining: cap - e.used, retryAfterMs: 0 };
  }

  /** Forgets windows that have ended, so idle keys do not pile up. */
  private sweep(now: number): void {
    if (this.entries.size < 10_000) return;
    for (const [id, e] of this.entries) {
      if (now - e.start >= this.options.windowMs) this.entries.delete(id);
    }
  }
}

class SlidingLog extends MemoryLimiter<number[]> {
  protected take(id: string, points: number, now: number): ConsumeResult {
    const { points: cap, windowMs } = this.options;
    const log = (this.entries.get(id) ?? []).filter((t) => now - t < windowMs);
    if (log.length + points > cap) {
      this.entries.set(id, log);
      // Enough points come back when the oldest ones that must leave have left the window.
      const mustLeave = log.length + points - cap;
      const leaves = log[mustLeave - 1];
      const retryAfterMs = leaves === undefined ? windowMs : leaves + windowMs - now;
      return {
        allowed: false,
        remaining: cap - log.length,
        retryAfterMs: Math.max(1, retryAfterMs),
      };
    }
    for (let i = 0; i < points; i++) log.push(now);
    this.entries.set(id, log);
    return { allowed: true, remaining: cap - log.length, retryAfterMs: 0 };
  }
}
