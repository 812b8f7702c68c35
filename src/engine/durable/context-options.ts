/** The runtime's timings and its clock; a worker may override each. */
import type { HumanTaskBridge } from "./human-task-bridge.ts";
import { DEFAULT_RUN_LIMITS } from "./run-limits.ts";

export interface ContextOptions {
  /** Waits shorter than this are awaited in memory (lease held); longer ones suspend. */
  inMemoryWaitMs: number;
  /** Retry delays shorter than this are slept in memory; longer ones are durable. */
  inMemoryBackoffMs: number;
  /**
   * A run waiting on human tasks or a child also re-checks them this often, in
   * case the wake-up that follows their completion was lost (a crash right after it).
   */
  recheckMs: number;
  /** A run blocked by a NonDeterminismError is tried again after this long. */
  nondeterminismBackoffMs: number;
  /**
   * Executions in a row that may end without parking, finishing or continuing
   * as new (counted durably, at each claim) before the next claim quarantines
   * the run instead of replaying it.
   */
  quarantineAfter: number;
  now: () => number;
  /** The inbox, for ctx.humanTask. */
  humanTasks?: HumanTaskBridge | undefined;
  /** A generation's history past this fails the run's next call (run-limits.ts); 0: no cap. */
  maxHistoryEvents: number;
}

export const DEFAULT_CONTEXT_OPTIONS: ContextOptions = {
  inMemoryWaitMs: 1_000,
  inMemoryBackoffMs: 5_000,
  recheckMs: 30_000,
  nondeterminismBackoffMs: 60_000,
  // Not lower: with every claim counted and 5, a node killed 20 times in half a minute under
  // 200 runs (the definition-crash test, one SQLite node) quarantined 27 healthy runs; claims
  // without progress are counted now, and 25 leaves a margin. A run that crashes its node on
  // every replay costs at most this many restarts (WF_RUN_QUARANTINE_AFTER).
  quarantineAfter: 25,
  now: Date.now,
  maxHistoryEvents: DEFAULT_RUN_LIMITS.maxHistoryEvents,
};
