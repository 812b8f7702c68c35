/**
 * What every JSON body of the REST API v1 (docs/api.md) shares. Times are
 * ISO-8601 strings in UTC (`"2025-01-15T09:30:00.000Z"`), exactly as on the
 * wire; every listed field of a response is always present, `null` when unset.
 */

/** An ISO-8601 time in UTC, as sent by the server. `new Date(t)` parses it. */
export type IsoTime = string;

/** Variables: any JSON object; its content belongs to the host application. */
export type Vars = Record<string, unknown>;

/**
 * One page of a list (docs/api.md#pagination). `nextCursor` is opaque, `null` on
 * the last page. The one definition: the server's views, the client and the
 * Console all read it from here.
 */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
