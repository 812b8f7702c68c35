/**
 * Caps per run (docs/durable.md, Limits): on what callers outside a run may
 * pile onto it, and on its history. Without them 150 signals of 200 KB made a 30 MB history that the
 * history route sent in one answer, and every replay of the run read again.
 * 0 turns a cap off.
 */
export interface RunLimits {
  /** Unconsumed signals a run may hold (WF_RUN_MAX_PENDING_SIGNALS). */
  maxPendingSignals: number;
  /**
   * Events of a run's current generation (WF_RUN_MAX_HISTORY): a signal that
   * would pass it, counting the unconsumed ones (each becomes one), is refused,
   * and the run's own next new call past it fails (history-cursor.ts).
   * continueAsNew starts the count again.
   */
  maxHistoryEvents: number;
  /** One signal's payload, as stored JSON text, in bytes (WF_SIGNAL_MAX_BYTES). */
  maxSignalBytes: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxPendingSignals: 100,
  maxHistoryEvents: 10_000,
  maxSignalBytes: 64 * 1024,
});

/** A history page: at most this many events (the `limit` query's default and cap). */
export const MAX_HISTORY_PAGE = 500;
/**
 * …and its events' stored data stops adding up past this many bytes (at least one
 * event a page), so a page of large events stays a page.
 */
export const HISTORY_PAGE_BYTES = 1024 * 1024;
