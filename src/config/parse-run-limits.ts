/**
 * The caps per run (engine/durable/run-limits.ts): whole numbers, 0 or "off"
 * for no cap. The upper bounds only catch typos (an extra digit or three).
 */
import { limit } from "./parse-load-limits.ts";

/** WF_RUN_MAX_PENDING_SIGNALS. */
export function parseRunMaxPendingSignals(value: unknown): number {
  return limit(value, 1, 1_000_000, "signals");
}

/** WF_RUN_MAX_HISTORY. */
export function parseRunMaxHistory(value: unknown): number {
  return limit(value, 1, 100_000_000, "events");
}

/** WF_SIGNAL_MAX_BYTES: at most the largest request body anyone would allow. */
export function parseSignalMaxBytes(value: unknown): number {
  return limit(value, 1, 1024 * 1024 * 1024, "bytes");
}
