/**
 * A creation-time window on a list (runs, processes): `from` inclusive,
 * `until` exclusive, epoch milliseconds, either end optional. Half-open, so
 * consecutive windows (a day, the next day) neither overlap nor leave a gap.
 */
import { taskflowError } from "./errors.ts";

export interface CreatedRange {
  /** Created at or after (the API's `createdAfter`). */
  from?: number | undefined;
  /** Created before (the API's `createdBefore`). */
  until?: number | undefined;
}

/** Refuses a window that is not one: a bound that is not a time, or from after until. */
export function checkCreatedRange({ from, until }: CreatedRange): void {
  for (const [name, v] of [
    ["createdAfter", from],
    ["createdBefore", until],
  ] as const) {
    if (v !== undefined && !Number.isSafeInteger(v)) {
      throw taskflowError("InvalidParameter", {
        detail: `${name} must be a time (epoch milliseconds)`,
      });
    }
  }
  if (from !== undefined && until !== undefined && from > until) {
    throw taskflowError("InvalidParameter", {
      detail: "createdAfter must not be later than createdBefore",
    });
  }
}
