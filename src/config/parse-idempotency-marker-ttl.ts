import { InvalidValue } from "./config-error.ts";

/**
 * A second at least: a marker must outlive the request that set it, or a
 * repeat would run while the first still does. An hour at most: a killed
 * node's key stays blocked that long, and 24 h is how long answers are kept.
 */
const MIN_MS = 1000;
const MAX_MS = 60 * 60 * 1000;

/** How long (ms) an Idempotency-Key's running request holds the key. */
export function parseIdempotencyMarkerTtl(value: unknown): number {
  const text = typeof value === "string" ? value.trim() : undefined;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < MIN_MS || n > MAX_MS) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of milliseconds between ${MIN_MS} and ${MAX_MS}`,
    );
  }
  return n;
}
