/**
 * The coordination's own housekeeping, as singleton jobs: expired cache
 * entries, finished rate-limit windows, expired one-time codes and dead tokens
 * are removed in bounded batches, so one round never holds a table for long
 * and a huge backlog is worked off over several rounds.
 */
import type { Coordination } from "./coordination-port.ts";
import type { SingletonJob } from "./singleton-jobs.ts";

export const CLEANUP_BATCH = 1000;
/** A round stops after this many full batches; the rest waits for the next round. */
const MAX_BATCHES_PER_ROUND = 100;

export interface CleanupIntervals {
  cacheMs?: number;
  tokensMs?: number;
  countersMs?: number;
  codesMs?: number;
}

export function coordinationCleanupJobs(
  coordination: Coordination,
  intervals: CleanupIntervals = {},
): SingletonJob[] {
  return [
    {
      name: "ttl-cache-cleanup",
      intervalMs: intervals.cacheMs ?? 60_000,
      run: (signal) => drain((n) => coordination.cache.cleanup(n), signal),
    },
    {
      name: "rate-limiter-cleanup",
      intervalMs: intervals.countersMs ?? 60_000,
      run: (signal) => drain((n) => coordination.limiters.cleanup(n), signal),
    },
    {
      name: "one-time-code-cleanup",
      intervalMs: intervals.codesMs ?? 10 * 60_000,
      run: (signal) => drain((n) => coordination.codes.cleanup(n), signal),
    },
    {
      name: "tokens-cleanup",
      intervalMs: intervals.tokensMs ?? 10 * 60_000,
      run: (signal) => drain((n) => coordination.tokens.cleanup(n), signal),
    },
  ];
}

/** Batches of CLEANUP_BATCH until one removes fewer (nothing left) or the signal aborts. */
export async function drain(
  cleanup: (maxEntries: number) => Promise<number>,
  signal: AbortSignal,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_ROUND && !signal.aborted; i++) {
    const removed = await cleanup(CLEANUP_BATCH);
    total += removed;
    if (removed < CLEANUP_BATCH) break;
  }
  return total;
}
