/**
 * Which driver errors mean "the database cannot be reached now" — the one
 * place that knows the drivers' error shapes for it. Such an error becomes an
 * UnavailableError (503, retry later); any other stays as it is (a bug or a
 * constraint is not fixed by retrying). Each backend's test is a predicate.
 */

interface DriverError {
  code?: unknown;
  errno?: unknown;
  fatal?: unknown;
  message?: unknown;
}

/** The socket could not be opened or died: the same for every networked driver. */
const NETWORK_CODES = new Set([
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

const fields = (e: unknown): DriverError => (typeof e === "object" && e !== null ? e : {});

/** pg reports a failed connect to "localhost" (::1 and 127.0.0.1) as an AggregateError of both. */
function everyInner(e: unknown, test: (e: unknown) => boolean): boolean {
  return e instanceof AggregateError && e.errors.length > 0 && e.errors.every(test);
}

/**
 * pg's own errors for a dead or unobtainable connection carry no code, only
 * these messages (pg 8: "Connection terminated", "… unexpectedly", "… due to
 * connection timeout"; pg-pool: "timeout exceeded when trying to connect";
 * a client whose connection died: "… encountered a connection error …").
 */
const PG_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /has encountered a connection error and is not queryable/,
];

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01
 * admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, recovery), 53300
 * too_many_connections.
 */
function isPgSqlState(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);
}

export function isPgUnavailable(e: unknown): boolean {
  if (everyInner(e, isPgUnavailable)) return true;
  const { code, message } = fields(e);
  if (typeof code === "string" && (NETWORK_CODES.has(code) || isPgSqlState(code))) return true;
  return typeof message === "string" && PG_MESSAGES.some((m) => m.test(message));
}

/**
 * mysql2 marks every error after which the connection is unusable `fatal`
 * (connection lost, network errors, "Can't add new command when connection is
 * in closed state"); the server's own: 1040 ER_CON_COUNT_ERROR (too many
 * connections), 1053 ER_SERVER_SHUTDOWN, 1927 ER_CONNECTION_KILLED (MariaDB:
 * `KILL <id>`), 4031 ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8: idle timeout).
 */
const MYSQL_CODES = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_CLIENT_INTERACTION_TIMEOUT",
]);
const MYSQL_ERRNOS = new Set([1040, 1053, 1927, 4031]);

export function isMysqlUnavailable(e: unknown): boolean {
  if (everyInner(e, isMysqlUnavailable)) return true;
  const { code, errno, fatal } = fields(e);
  if (fatal === true) return true;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || MYSQL_CODES.has(code))) return true;
  return typeof errno === "number" && MYSQL_ERRNOS.has(errno);
}

/**
 * SQLite has no connection to lose; these are the conditions of the file and
 * the machine under it that a retry can outlast, none of them the request's
 * fault:
 * - SQLITE_BUSY: another process (a `taskflow migrate`, a backup, a second
 *   node on the file) kept the write lock past busy_timeout (5 s).
 * - SQLITE_FULL: the disk is full; reads still work, writes resume when an
 *   operator frees space.
 * - SQLITE_IOERR_*, SQLITE_CANTOPEN: the file system failed the read or write.
 * - SQLITE_READONLY_*: the file (or its file system) became read-only.
 * Not these: SQLITE_CORRUPT (retrying cannot help; a 500 that pages somebody),
 * SQLITE_LOCKED (a conflict inside this one connection is a bug), constraints.
 */
const SQLITE_PREFIXES = [
  "SQLITE_BUSY",
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_READONLY",
];

export function isSqliteUnavailable(e: unknown): boolean {
  const { code } = fields(e);
  return (
    typeof code === "string" && SQLITE_PREFIXES.some((p) => code === p || code.startsWith(`${p}_`))
  );
}
