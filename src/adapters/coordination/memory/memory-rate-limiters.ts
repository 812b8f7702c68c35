/**
 * Rate limiters inside one process. Fixed windows start at multiples of their
 * length, as on the SQL and Redis backends (and as the port's glossary says);
 * sliding windows keep the time of every point taken in the last window (a
 * sliding log: exact, and cheap at the caps a single process sees). Two
 * limiter() calls with the same name, window and length share their counts,
 * as they do where the counts live in a database.
 */
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiterOptions,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { taskflowError } from "../../../domain/errors.ts";

export function memoryRateLimiters(ctx: MemoryContext): RateLimiters {
  const all = new Map<string, FixedWindow | SlidingLog>();
  return {
    limiter(options) {
      checkKey("limiter name", options.name);
      checkPoints("points", options.points);
      checkDuration("windowMs", options.windowMs);
      const window = options.window ?? "fixed";
      if (window !== "fixed" && window !== "sliding") {
        throw taskflowError("InvalidArgument", {
          detail: `window must be fixed or sliding; got ${String(window)}`,
        });
      }
      const scope = `${ctx.keyPrefix}${options.name}\u0000`;
      const id = `${scope}${window}\u0000${options.windowMs}`;
      const shared = all.get(id);
      // The cap may differ between handles: each handle checks its own against the shared counts.
      const limiter =
        window === "sliding"
          ? new SlidingLog(scope, options, shared?.entries as SlidingLog["entries"] | undefined)
          : new FixedWindow(scope, options, shared?.entries as FixedWindow["entries"] | undefined);
      if (shared === undefined) all.set(id, limiter);
      return limiter;
    },
    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      const now = Date.now();
      let removed = 0;
      for (const limiter of all.values()) {
        removed += limiter.forgetPassed(now, maxEntries - removed);
        if (removed >= maxEntries) break;
      }
      return Promise.resolve(removed);
    },
  };
}

abstract class MemoryLimiter<Entry> implements RateLimiter {
  constructor(
    private readonly scope: string,
    protected readonly options: RateLimiterOptions,
    readonly entries = new Map<string, Entry>(),
  ) {}

  /** Removes up to `max` keys whose points have all left their window; how many it removed. */
  forgetPassed(now: number, max: number): number {
    let removed = 0;
    for (const [id, e] of this.entries) {
      if (removed >= max) break;
      if (this.passed(e, now)) {
        this.entries.delete(id);
        removed++;
      }
    }
    return removed;
  }

  protected abstract passed(e: Entry, now: number): boolean;

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
  protected passed(e: { start: number }, now: number): boolean {
    return now - e.start >= this.options.windowMs;
  }

  protected take(id: string, points: number, now: number): ConsumeResult {
    const { points: cap, windowMs } = this.options;
    let e = this.entries.get(id);
    if (e === undefined || now - e.start >= windowMs) {
      e = { start: now - (now % windowMs), used: 0 };
      this.entries.set(id, e);
      this.sweep(now);
    }
    const ends = e.start + windowMs - now;
    if (e.used + points > cap) {
      return {
        allowed: false,
        remaining: Math.max(0, cap - e.used),
        retryAfterMs: Math.max(1, ends),
      };
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
  protected passed(log: number[], now: number): boolean {
    return log.every((t) => now - t >= this.options.windowMs);
  }

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
        remaining: Math.max(0, cap - log.length),
        retryAfterMs: Math.max(1, retryAfterMs),
      };
    }
    for (let i = 0; i < points; i++) log.push(now);
    this.entries.set(id, log);
    return { allowed: true, remaining: cap - log.length, retryAfterMs: 0 };
  }
}
