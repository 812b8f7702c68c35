/**
 * Keeps a lost MariaDB/MySQL connection from killing the process.
 *
 * mysql2 emits 'error' on a pooled connection whenever it dies (the server
 * closed it, `KILL <id>`, a restart, a reset), even when a query's callback
 * has already received the error. The pool's own listener is `once`: it
 * removes the connection from the pool on the first error, and a second
 * 'error' on the same connection — a write to it after the first, which
 * mysql2 reports as "Can't write in closed state", or a network error after
 * a protocol error — would be unhandled and end the process. A permanent
 * listener on every connection makes every later one harmless: the query
 * that was running (if any) fails through its callback, and the pool has
 * already dropped the connection.
 */
import type { Pool, PoolConnection } from "mysql2";

const ignore = () => undefined;

export function guardConnectionErrors(pool: Pool): Pool {
  // 'connection' fires once per new connection, after its handshake and before first use.
  pool.on("connection", (conn: PoolConnection) => conn.on("error", ignore));
  return pool;
}
