/**
 * What a driver error means to the code above the dialect, in one shared
 * vocabulary. Each dialect folder classifies its own driver's error shapes
 * (codes, errnos, messages) into these kinds, so the stores branch on the kind
 * and never on a backend's error code.
 *
 * - `unavailable`: the database cannot be reached now (connection refused or
 *   lost, server shutting down, SQLite's file busy past busy_timeout, disk
 *   full). Becomes the domain's UnavailableError: 503, retry later.
 * - `duplicate-key`: a unique or primary key already holds the row. The
 *   stores use it as "somebody else wrote it first".
 * - `deadlock`: the database broke a lock cycle by failing this statement or
 *   transaction as a whole; running it again is safe.
 * - `serialization`: a serializable or snapshot conflict; as with a deadlock,
 *   nothing was written and running it again is safe.
 * - `other`: everything else (a bug, a constraint, bad SQL): never retried.
 */
export const DriverErrorKind = {
  Unavailable: "unavailable",
  DuplicateKey: "duplicate-key",
  Deadlock: "deadlock",
  Serialization: "serialization",
  Other: "other",
} as const;
export type DriverErrorKind = (typeof DriverErrorKind)[keyof typeof DriverErrorKind];

/** One dialect's classification of its driver's errors. */
export type ClassifyDriverError = (error: unknown) => DriverErrorKind;

/** The fields drivers put on their errors; any may be absent. */
export interface DriverErrorFields {
  code?: unknown;
  errno?: unknown;
  fatal?: unknown;
  message?: unknown;
}

export const fieldsOf = (e: unknown): DriverErrorFields =>
  typeof e === "object" && e !== null ? e : {};

/** The socket could not be opened or died: the same for every networked driver. */
export const NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  // DNS: the name resolved when the node started, so failing now is an outage.
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** pg and mysql2 report a failed connect to "localhost" (::1 and 127.0.0.1) as an AggregateError of both. */
export function everyInner(e: unknown, test: (e: unknown) => boolean): boolean {
  return e instanceof AggregateError && e.errors.length > 0 && e.errors.every(test);
}
