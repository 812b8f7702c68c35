/** `createdAfter` / `createdBefore` as query values: a Date goes as its ISO-8601 form. */
import type { CreatedRangeOptions } from "./client-types.ts";

const text = (t: string | Date | undefined) => (t instanceof Date ? t.toISOString() : t);

export function createdRange(o: CreatedRangeOptions): Record<string, string | undefined> {
  return { createdAfter: text(o.createdAfter), createdBefore: text(o.createdBefore) };
}
