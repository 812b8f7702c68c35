/**
 * Rate limiters inside one process. Fixed windows start at multiples of their
 * length, as on SQL and Redis (rate-limit-windows.ts), so the backends agree
 * where a window ends; sliding windows keep the time of every point taken in
 * the last window (a sliding log: exact, and cheap at the caps a single
 * process sees). Two handles on one limiter name share its counters, as they
 * do on the shared backends.
 */
import type {
  ConsumeResult,
  RateLimiter,
  RateLimiterOptions,
  RateLimiters,
} from "../../../engine/coordination/rate-limiter.ts";
import { checkKey, checkPoints, checkTenant } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { limiterSpec, windowStart } from "../rate-limit-windows.ts";

export function memoryRateLimiters(ctx: MemoryContext): RateLimiters {
  // One counter map per limiter name and window kind, shared by every handle on it, and the
  // first handle on each, through which cleanup() sweeps it as the SQL table's sweep does.
  const counters = new Map<string, MemoryLimiter<unknown>>();
  const handle = (id: string, make: (entries?: Map<string, never>) => MemoryLimiter<unknown>) => {
    const first = counters.get(id);
    if (first !== undefined) return make(first.entries as Map<string, never>);
    const made = make();
    counters.set(id, made);
    return made;
  };
  return {
    limiter(options) {
      // The SQL and Redis limiters' checks, so a bad option is the same Validation error here.
      limiterSpec(options);
      const scope = `${ctx.keyPrefix}${options.name}\u0000`;
      return options.window === "sliding"
        ? handle(`s${scope}`, (entries) => new SlidingLog(scope, options, entries))
        : handle(`f${scope}`, (entries) => new FixedWindow(scope, options, entries));
    },
    cleanup(maxEntries) {
      checkPoints("maxEntries", maxEntries);
      const now = Date.now();
      let removed = 0;
      for (const limiter of counters.values()) {
        removed += limiter.removeExpired(now, maxEntries - removed);
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
    readonly entries: Map<string, Entry> = new Map(),
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

  /** Removes up to `max` counters whose window has passed; how many it removed. */
  removeExpired(now: number, max: number): number {
    let removed = 0;
    for (const [id, e] of this.entries) {
      if (removed >= max) break;
      if (this.expired(e, now)) {
        this.entries.delete(id);
        removed++;
      }
    }
    return removed;
  }

  protected abstract take(id: string, points: number, now: number): ConsumeResult;
  protected abstract expired(entry: Entry, now: number): boolean;
}

class FixedWindow extends MemoryLimiter<{ start: number; used: number }> {
  protected take(id: string, points: number, now: number): ConsumeResult {
    const { points: cap, windowMs } = this.options;
    let e = this.entries.get(id);
    if (e === undefined || now - e.start >= windowMs) {
      e = { start: windowStart(now, windowMs), used: 0 };
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

  protected expired(e: { start: number }, now: number): boolean {
    return now - e.start >= this.options.windowMs;
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
  protected expired(log: number[], now: number): boolean {
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
        remaining: cap - log.length,
        retryAfterMs: Math.max(1, retryAfterMs),
      };
    }
    for (let i = 0; i < points; i++) log.push(now);
    this.entries.set(id, log);
    return { allowed: true, remaining: cap - log.length, retryAfterMs: 0 };
  }
}
