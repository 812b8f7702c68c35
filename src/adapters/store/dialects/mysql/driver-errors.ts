/**
 * MariaDB/MySQL (mysql2) driver errors in the shared vocabulary of
 * driver-error.ts.
 */
import { DriverErrorKind, NETWORK_CODES, everyInner, fieldsOf } from "../driver-error.ts";

/**
 * mysql2 marks every error after which the connection is unusable `fatal`
 * (connection lost, network errors, "Can't add new command when connection is
 * in closed state"); the server's own: 1040 ER_CON_COUNT_ERROR (too many
 * connections), 1053 ER_SERVER_SHUTDOWN, 1927 ER_CONNECTION_KILLED (MariaDB:
 * `KILL <id>`), 4031 ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8: idle timeout).
 */
const UNREACHABLE_CODES = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "ER_CON_COUNT_ERROR",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_CLIENT_INTERACTION_TIMEOUT",
]);
const UNREACHABLE_ERRNOS = new Set([1040, 1053, 1927, 4031]);

export function isMysqlUnavailable(e: unknown): boolean {
  if (everyInner(e, isMysqlUnavailable)) return true;
  const { code, errno, fatal } = fieldsOf(e);
  if (fatal === true) return true;
  if (typeof code === "string" && (NETWORK_CODES.has(code) || UNREACHABLE_CODES.has(code))) {
    return true;
  }
  return typeof errno === "number" && UNREACHABLE_ERRNOS.has(errno);
}

/**
 * 1062 ER_DUP_ENTRY; 1213 ER_LOCK_DEADLOCK (InnoDB rolled the transaction
 * back); 1020 ER_CHECKREAD ("record has changed since last read", MariaDB's
 * snapshot-isolation conflict) counts as a serialization failure.
 */
export function classifyMysqlError(e: unknown): DriverErrorKind {
  if (isMysqlUnavailable(e)) return DriverErrorKind.Unavailable;
  const { code, errno } = fieldsOf(e);
  if (code === "ER_DUP_ENTRY" || errno === 1062) return DriverErrorKind.DuplicateKey;
  if (code === "ER_LOCK_DEADLOCK" || errno === 1213) return DriverErrorKind.Deadlock;
  if (code === "ER_CHECKREAD" || errno === 1020) return DriverErrorKind.Serialization;
  return DriverErrorKind.Other;
}
