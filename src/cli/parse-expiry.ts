/**
 * `--expires` of `taskflow keys create`: a lifetime counted from now (90d,
 * 12h) or an ISO date or date-time (2027-01-31, 2027-01-31T12:00:00Z).
 */
const DURATION = /^([1-9][0-9]{0,5})([dh])$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const UNIT_MS = { d: 24 * 3600_000, h: 3600_000 } as const;

/** The expiry, or a message saying what is wrong. */
export function parseExpiry(text: string, now = new Date()): Date | string {
  const duration = DURATION.exec(text);
  if (duration !== null) {
    const unit = duration[2] === "h" ? "h" : "d";
    return new Date(now.getTime() + Number(duration[1]) * UNIT_MS[unit]);
  }
  const at = ISO_DATE.test(text) ? new Date(text) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) {
    return `--expires '${text.slice(0, 40)}': give a lifetime such as 90d or 12h, or an ISO date such as 2027-01-31`;
  }
  if (at.getTime() <= now.getTime()) {
    return `--expires ${text}: that is not in the future`;
  }
  return at;
}
