/**
 * SQLite (better-sqlite3) driver errors in the shared vocabulary of
 * driver-error.ts. SQLite serialises write transactions, so it has no
 * deadlock or serialization kind.
 */
import { DriverErrorKind, fieldsOf } from "../driver-error.ts";

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
const UNAVAILABLE_PREFIXES = [
  "SQLITE_BUSY",
  "SQLITE_FULL",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_READONLY",
];

const DUPLICATE_CODES = new Set(["SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_CONSTRAINT_UNIQUE"]);

export function isSqliteUnavailable(e: unknown): boolean {
  const { code } = fieldsOf(e);
  return (
    typeof code === "string" &&
    UNAVAILABLE_PREFIXES.some((p) => code === p || code.startsWith(`${p}_`))
  );
}

export function classifySqliteError(e: unknown): DriverErrorKind {
  if (isSqliteUnavailable(e)) return DriverErrorKind.Unavailable;
  const { code } = fieldsOf(e);
  if (typeof code === "string" && DUPLICATE_CODES.has(code)) return DriverErrorKind.DuplicateKey;
  return DriverErrorKind.Other;
}
