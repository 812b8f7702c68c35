/**
 * Durations as definitions write them: ISO 8601 ("P2D", "PT1H30M", "P1W"),
 * compact ("2d", "1h30m", "500ms", as elsewhere in TaskFlow) or milliseconds.
 */
import { toMs } from "../../../domain/duration.ts";
import { taskflowError } from "../../../domain/errors.ts";

const ISO = /^P(?!$)(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

export function durationMs(d: unknown): number {
  if (typeof d === "number") return toMs(d);
  if (typeof d !== "string")
    throw taskflowError("InvalidDuration", { detail: `not a duration: ${JSON.stringify(d)}` });
  const m = ISO.exec(d.trim());
  if (m === null) return toMs(d);
  const n = (i: number) => Number(m[i] ?? 0);
  return Math.round(
    n(1) * 604_800_000 + n(2) * 86_400_000 + n(3) * 3_600_000 + n(4) * 60_000 + n(5) * 1_000,
  );
}
