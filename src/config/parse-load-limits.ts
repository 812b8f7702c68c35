import { InvalidValue } from "./config-error.ts";

const OFF = ["off", "0"];
const MAX_IN_FLIGHT = 1_000_000;
/** under-pressure samples the delay at a 10 ms resolution; a smaller limit would shed always. */
const MIN_EVENT_LOOP_DELAY_MS = 10;
const MAX_EVENT_LOOP_DELAY_MS = 60_000;

/** The most /v1 requests one node works on at once; 0 or "off" for no limit. */
export function parseMaxInFlight(value: unknown): number {
  return limit(value, 1, MAX_IN_FLIGHT, "requests");
}

/** Mean event-loop delay in ms past which /v1 requests are shed; 0 or "off" to disable. */
export function parseMaxEventLoopDelay(value: unknown): number {
  return limit(value, MIN_EVENT_LOOP_DELAY_MS, MAX_EVENT_LOOP_DELAY_MS, "milliseconds");
}

/** A whole number from min to max, or 0 / "off" (0): the form every load and size limit takes. */
export function limit(value: unknown, min: number, max: number, unit: string): number {
  const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (value === false || (text !== undefined && OFF.includes(text))) return 0;
  const n = text !== undefined && /^[0-9]+$/.test(text) ? Number(text) : value;
  if (n === 0) return 0;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidValue(
      `${JSON.stringify(value)} is not a number of ${unit} between ${min} and ${max}, or 0 / "off" to disable`,
    );
  }
  return n;
}
