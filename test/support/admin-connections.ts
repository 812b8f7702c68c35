/**
 * The admin connections of the test servers: one short-lived connection per
 * call, with the right to create and drop databases. Shared by backends.ts
 * (a database per test) and template-databases.ts (one template per run).
 *
 * Servers: PostgreSQL and MariaDB on 127.0.0.1 by default; override the admin
 * URLs with TF_TEST_POSTGRES_URL / TF_TEST_MYSQL_URL (user with CREATE DATABASE).
 */
import pg from "pg";
import { createConnection } from "mysql2/promise";

export const POSTGRES_ADMIN_URL =
  process.env.TF_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const MYSQL_ADMIN_URL = process.env.TF_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/";

/**
 * A connect that times out is a server slow to answer, not a missing one: on a
 * loaded 2-core machine (test files side by side, other test runs) connecting
 * took over 3 s, which failed whole files in CI. Creating or dropping a
 * database always has this long.
 */
export const SLOW_SERVER_TIMEOUT_MS = 15_000;

export type MysqlConnection = Awaited<ReturnType<typeof createConnection>>;

export async function withPostgres<T>(
  url: string,
  fn: (c: pg.Client) => Promise<T>,
  timeoutMs = SLOW_SERVER_TIMEOUT_MS,
): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export const withPostgresAdmin = <T>(
  fn: (c: pg.Client) => Promise<T>,
  timeoutMs = SLOW_SERVER_TIMEOUT_MS,
): Promise<T> => withPostgres(POSTGRES_ADMIN_URL, fn, timeoutMs);

export async function withMysqlAdmin<T>(
  fn: (c: MysqlConnection) => Promise<T>,
  timeoutMs = SLOW_SERVER_TIMEOUT_MS,
): Promise<T> {
  // Several statements per call: a template's copy is one round trip (template-databases.ts).
  const conn = await createConnection({
    uri: MYSQL_ADMIN_URL,
    connectTimeout: timeoutMs,
    multipleStatements: true,
  });
  try {
    return await fn(conn);
  } finally {
    await conn.end();
  }
}

/** The admin URL with its database replaced by `db`. */
export function withDatabase(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}
