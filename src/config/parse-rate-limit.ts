import { InvalidValue } from "./config-error.ts";
import type { RateLimit } from "./config.ts";

const MAX_POINTS = 1_000_000_000;
/** One day: a longer window is a quota, not a rate limit. */
const MAX_WINDOW_SECONDS = 24 * 60 * 60;
const UNIT_SECONDS = { s: 1, m: 60, h: 60 * 60 } as const;
/** "<requests>/<window>": 2000/1s, 2000/s, 100/1m, 10000/1h. */
const RATE = /^([0-9]+)\s*\/\s*([0-9]*)\s*([smh])$/;
const OFF = ["off", "0"];

const FORMAT =
  'must be "<requests>/<window>" such as "2000/1s", "100/1m" or "10000/1h", or "off" (or 0) to disable';

/**
 * The request budget per API key and tenant. "off", "0", 0 or false disable it
 * (null); in code or a file it may also be { points, durationSeconds }.
 */
export function parseRateLimit(value: unknown): RateLimit | null {
  if (value === false || value === 0) return null;
  if (typeof value === "object" && value !== null) return fromObject(value);
  if (typeof value !== "string") throw new InvalidValue(`${JSON.stringify(value)} ${FORMAT}`);
  const text = value.trim().toLowerCase();
  if (OFF.includes(text)) return null;
  const m = RATE.exec(text);
  if (!m) throw new InvalidValue(`${JSON.stringify(value)} ${FORMAT}`);
  const count = m[2] === "" || m[2] === undefined ? 1 : Number(m[2]);
  const unit = UNIT_SECONDS[m[3] as keyof typeof UNIT_SECONDS];
  return checked(value, Number(m[1]), count * unit);
}

function fromObject(value: object): RateLimit {
  const { points, durationSeconds } = value as Partial<Record<keyof RateLimit, unknown>>;
  if (typeof points !== "number" || typeof durationSeconds !== "number") {
    throw new InvalidValue(
      'must be { points: integer, durationSeconds: integer } or a string such as "2000/1s"',
    );
  }
  return checked(value, points, durationSeconds);
}

function checked(value: unknown, points: number, durationSeconds: number): RateLimit {
  const shown = JSON.stringify(value);
  if (!Number.isInteger(points) || points < 1 || points > MAX_POINTS) {
    throw new InvalidValue(
      `${shown}: the number of requests must be an integer between 1 and ${MAX_POINTS} (use "off" to disable)`,
    );
  }
  if (
    !Number.isInteger(durationSeconds) ||
    durationSeconds < 1 ||
    durationSeconds > MAX_WINDOW_SECONDS
  ) {
    throw new InvalidValue(
      `${shown}: the window must be a whole number of seconds between 1 and ${MAX_WINDOW_SECONDS} (1s to 24h)`,
    );
  }
  return { points, durationSeconds };
}

/** "2000/1s", "100/1m": how a budget is written back in messages and logs. */
export function formatRateLimit(limit: RateLimit): string {
  const d = limit.durationSeconds;
  const window = d % 3600 === 0 ? `${d / 3600}h` : d % 60 === 0 ? `${d / 60}m` : `${d}s`;
  return `${limit.points}/${window}`;
}
