/**
 * A warning per kind at most once per interval. A cache problem (Redis down,
 * a corrupt payload) repeats on every read; one line per read would bury the
 * log, and the count of the ones held back still says how often it happened.
 */
import type { CacheWarnLog } from "../../engine/definition-cache/cache-provider-port.ts";

export const WARN_INTERVAL_MS = 10_000;

export type Warn = (kind: string, fields: Record<string, unknown>, message: string) => void;

export function warnLimiter(
  log: CacheWarnLog,
  intervalMs = WARN_INTERVAL_MS,
  now: () => number = Date.now,
): Warn {
  const last = new Map<string, { at: number; suppressed: number }>();
  return (kind, fields, message) => {
    const t = now();
    const seen = last.get(kind);
    if (seen !== undefined && t - seen.at < intervalMs) {
      seen.suppressed += 1;
      return;
    }
    last.set(kind, { at: t, suppressed: 0 });
    log.warn({ ...fields, kind, suppressed: seen?.suppressed ?? 0 }, message);
  };
}
