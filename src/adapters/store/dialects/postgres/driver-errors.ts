/**
 * PostgreSQL (pg) driver errors in the shared vocabulary of driver-error.ts.
 */
import { DriverErrorKind, NETWORK_CODES, everyInner, fieldsOf } from "../driver-error.ts";

/**
 * pg's own errors for a dead or unobtainable connection carry no code, only
 * these messages (pg 8: "Connection terminated", "… unexpectedly", "… due to
 * connection timeout"; pg-pool: "timeout exceeded when trying to connect";
 * a client whose connection died: "… encountered a connection error …").
 */
const LOST_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /has encountered a connection error and is not queryable/,
];

/**
 * SQLSTATEs of an unreachable server: class 08 (connection exception), 57P01
 * admin_shutdown (pg_terminate_backend, a fast shutdown), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, recovery), 53300
 * too_many_connections.
 */
function isUnreachableState(code: string): boolean {
  return code.startsWith("08") || ["57P01", "57P02", "57P03", "53300"].includes(code);
}

export function isPgUnavailable(e: unknown): boolean {
  if (everyInner(e, isPgUnavailable)) return true;
  const { code, message } = fieldsOf(e);
  if (typeof code === "string" && (NETWORK_CODES.has(code) || isUnreachableState(code))) {
    return true;
  }
  return typeof message === "string" && LOST_MESSAGES.some((m) => m.test(message));
}

/** 23505 unique_violation, 40P01 deadlock_detected, 40001 serialization_failure. */
export function classifyPgError(e: unknown): DriverErrorKind {
  if (isPgUnavailable(e)) return DriverErrorKind.Unavailable;
  const { code } = fieldsOf(e);
  if (code === "23505") return DriverErrorKind.DuplicateKey;
  if (code === "40P01") return DriverErrorKind.Deadlock;
  if (code === "40001") return DriverErrorKind.Serialization;
  return DriverErrorKind.Other;
}
