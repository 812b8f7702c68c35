/**
 * Durations as workflow code writes them: a number of milliseconds or a string
 * such as "500ms", "30s", "5m", "2h", "7d" (also compound: "1h30m").
 */
import { taskflowError } from "./errors.ts";

export type Duration = number | string;

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/gy;

/** Milliseconds in `d`; throws a Validation error for anything else. */
export function toMs(d: Duration): number {
  if (typeof d === "number") {
    if (!Number.isFinite(d) || d < 0)
      throw taskflowError("InvalidDuration", { detail: `invalid duration ${d}` });
    return d;
  }
  const text = d.trim();
  if (/^\d+$/.test(text)) return Number(text);
  let total = 0;
  let matched = 0;
  PART.lastIndex = 0;
  for (let m = PART.exec(text); m !== null; m = PART.exec(text)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    matched = PART.lastIndex;
  }
  if (text === "" || matched !== text.length) {
    throw taskflowError("InvalidDuration", {
      detail: `invalid duration '${d}': use ms or e.g. "500ms", "30s", "2h", "7d"`,
    });
  }
  return Math.round(total);
}
