import { InvalidValue } from "./config-error.ts";

/**
 * A minute at most: a hook's caller holds its connection that long, and a
 * run that needs longer to answer should answer some other way.
 */
const MAX_TRIGGER_RESPONSE_TIMEOUT_MS = 60_000;

/** How long a hook request waits for its run's `respond` state, in ms; 0 or "off": never (always 202). */
export function parseTriggerResponseTimeout(value: unknown): number {
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (value === false || text === "off") return 0;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (
    typeof n !== "number" ||
    !Number.isInteger(n) ||
    n < 0 ||
    n > MAX_TRIGGER_RESPONSE_TIMEOUT_MS
  ) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of milliseconds between 0 and ${MAX_TRIGGER_RESPONSE_TIMEOUT_MS}, or "off"`,
    );
  }
  return n;
}
