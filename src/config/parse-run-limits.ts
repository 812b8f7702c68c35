/**
 * The caps per run (engine/durable/run-limits.ts): whole numbers, 0 or "off"
 * for no cap. The upper bounds only catch typos (an extra digit or three).
 */
import { InvalidValue } from "./config-error.ts";
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

/**
 * WF_RUN_QUARANTINE_AFTER: executions in a row that end without parking or
 * finishing before a run is quarantined (docs/durable.md, Quarantine). Never
 * off: a run that kills its node on every replay would do so for ever.
 */
export function parseRunQuarantineAfter(value: unknown): number {
  const text = typeof value === "string" ? value.trim() : undefined;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 10_000) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of executions between 1 and 10000 (it cannot be off)`,
    );
  }
  return n;
}
