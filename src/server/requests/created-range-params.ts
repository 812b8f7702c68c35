/**
 * `createdAfter` / `createdBefore` on list routes: ISO-8601 date-times in the
 * query string, a CreatedRange for the engine.
 */
import { taskflowError } from "../../domain/errors.ts";
import { checkCreatedRange, type CreatedRange } from "../../domain/created-range.ts";

export interface CreatedRangeQuery {
  createdAfter?: string;
  createdBefore?: string;
}

export const createdRangeQueryProperties = {
  createdAfter: {
    type: "string",
    format: "date-time",
    maxLength: 64,
    description: "Only items created at or after this time (ISO-8601 date-time with offset).",
    examples: ["2026-12-01T00:00:00Z"],
  },
  createdBefore: {
    type: "string",
    format: "date-time",
    maxLength: 64,
    description:
      "Only items created before this time (exclusive). Not earlier than `createdAfter`.",
    examples: ["2026-12-02T00:00:00Z"],
  },
} as const;

/** The schema checked the shape; a date the calendar lacks (a leap second) still fails here. */
function time(name: keyof CreatedRangeQuery, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw taskflowError("InvalidParameter", {
      detail: `query parameter '${name}' is not a date-time: '${text}'`,
    });
  return ms;
}

export function createdRange(q: CreatedRangeQuery): CreatedRange {
  const range = {
    from: time("createdAfter", q.createdAfter),
    until: time("createdBefore", q.createdBefore),
  };
  checkCreatedRange(range);
  return range;
}
