/**
 * Keeps a lost PostgreSQL connection from killing the process.
 *
 * pg's Client emits 'error' when its connection dies while no query is
 * running on it, e.g. `pg_terminate_backend` (57P01) or a reset between two
 * statements of a transaction. pg-pool listens for that only while a client
 * is idle: it removes its listener when it hands the client out, so an error
 * on a checked-out client had no listener, and Node throws an unhandled
 * 'error' event — 4 of 4 PostgreSQL restarts under load took the server down.
 *
 * A permanent listener on every client is enough: the client has already
 * marked itself unusable (`_queryable = false`), its next query fails with an
 * error the store reports as "unavailable", and when it is released the pool
 * sees that and discards it instead of reusing it.
 */
import type pg from "pg";

const ignore = () => undefined;

export function guardConnectionErrors(pool: pg.Pool): pg.Pool {
  // An idle client's error reaches the pool, which has already dropped the client.
  pool.on("error", ignore);
  // 'connect' fires once per new client, before the pool hands it out.
  pool.on("connect", (client) => client.on("error", ignore));
  return pool;
}
