/**
 * The database backends tests run against, and how to get a fresh empty
 * database on each. Shared by the store contract tests and the HTTP tests.
 *
 * Servers: PostgreSQL and MariaDB on 127.0.0.1 by default; override the admin
 * URLs with TF_TEST_POSTGRES_URL / TF_TEST_MYSQL_URL (user with CREATE DATABASE).
 * In CI (CI=true) an unreachable server fails the run instead of skipping.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createConnection } from "mysql2/promise";

export interface Backend {
  name: "sqlite" | "postgres" | "mysql";
}

export const backends: Backend[] = [{ name: "sqlite" }, { name: "postgres" }, { name: "mysql" }];

const POSTGRES_ADMIN_URL =
  process.env.TF_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const MYSQL_ADMIN_URL = process.env.TF_TEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/";
/**
 * A down server should cost a test run seconds, not the OS connect timeout: a
 * stopped local server refuses at once, so the probe's first try is short.
 */
const PROBE_TIMEOUT_MS = 3000;
/**
 * A connect that times out instead is a server slow to answer, not a missing
 * one: on a loaded 2-core machine (test files side by side, other test runs)
 * connecting took over 3 s, which failed whole files in CI. Such a probe is
 * tried once more with this, and creating or dropping a database always has it.
 */
const SLOW_SERVER_TIMEOUT_MS = 15_000;

/** Where a server is, for skip messages: host and port only, never credentials. */
function hostOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port}`;
}

function reasonOf(e: unknown): string {
  if (e instanceof AggregateError) return e.errors.map(reasonOf).join("; ");
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err.code === "string") return err.code;
  return typeof err.message === "string" ? err.message : String(e);
}

async function withPostgresAdmin<T>(
  fn: (c: pg.Client) => Promise<T>,
  timeoutMs = SLOW_SERVER_TIMEOUT_MS,
): Promise<T> {
  const client = new pg.Client({
    connectionString: POSTGRES_ADMIN_URL,
    connectionTimeoutMillis: timeoutMs,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function withMysqlAdmin<T>(
  fn: (c: Awaited<ReturnType<typeof createConnection>>) => Promise<T>,
  timeoutMs = SLOW_SERVER_TIMEOUT_MS,
): Promise<T> {
  const conn = await createConnection({ uri: MYSQL_ADMIN_URL, connectTimeout: timeoutMs });
  try {
    return await fn(conn);
  } finally {
    await conn.end();
  }
}

/** Whether a failed connect ran out of time (the server is slow) rather than being refused. */
const timedOut = (reason: string) => /ETIMEDOUT|timeout/i.test(reason);

async function probe(b: Backend): Promise<string | null> {
  const first = await probeOnce(b, PROBE_TIMEOUT_MS);
  return first !== null && timedOut(first) ? probeOnce(b, SLOW_SERVER_TIMEOUT_MS) : first;
}

async function probeOnce(b: Backend, timeoutMs: number): Promise<string | null> {
  try {
    switch (b.name) {
      case "sqlite":
        await import("better-sqlite3");
        return null;
      case "postgres":
        await withPostgresAdmin((c) => c.query("select 1"), timeoutMs);
        return null;
      case "mysql":
        await withMysqlAdmin((c) => c.query("select 1"), timeoutMs);
        return null;
    }
  } catch (e) {
    const where =
      b.name === "sqlite"
        ? "better-sqlite3"
        : b.name === "postgres"
          ? `PostgreSQL at ${hostOf(POSTGRES_ADMIN_URL)}`
          : `MariaDB at ${hostOf(MYSQL_ADMIN_URL)}`;
    return `${where} unreachable: ${reasonOf(e)}`;
  }
}

// One probe per backend per test process: every suite asks, the server is dialled once.
const probes = new Map<Backend["name"], Promise<string | null>>();

/** null when usable; otherwise the reason (e.g. "PostgreSQL at 127.0.0.1:5432 unreachable: ECONNREFUSED"). */
export function unavailableReason(b: Backend): Promise<string | null> {
  let p = probes.get(b.name);
  if (!p) {
    p = probe(b);
    probes.set(b.name, p);
  }
  return p;
}

/** tf_ + 12 hex digits: unique per test, a valid unquoted identifier on both servers. */
const freshName = () => `tf_${randomBytes(6).toString("hex")}`;

function withDatabase(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Creates an isolated, empty database (SQLite: temp file; PG and MariaDB: a fresh database named tf_<random>) and returns its DATABASE_URL plus a drop() that removes it. */
export async function createTestDatabase(
  b: Backend,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = freshName();
  switch (b.name) {
    case "sqlite": {
      const dir = await mkdtemp(join(tmpdir(), "taskflow-test-"));
      return {
        url: `sqlite:${join(dir, `${name}.db`)}`,
        drop: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case "postgres": {
      await withPostgresAdmin((c) => c.query(`create database ${name}`));
      return {
        url: withDatabase(POSTGRES_ADMIN_URL, name),
        // FORCE (PostgreSQL 13+) ends connections a failed test left open.
        drop: () =>
          withPostgresAdmin((c) => c.query(`drop database if exists ${name} with (force)`)).then(
            () => undefined,
          ),
      };
    }
    case "mysql": {
      await withMysqlAdmin((c) => c.query(`create database ${name}`));
      return {
        url: withDatabase(MYSQL_ADMIN_URL, name),
        drop: () =>
          withMysqlAdmin((c) => c.query(`drop database if exists ${name}`)).then(() => undefined),
      };
    }
  }
}

/** For node:test: returns { skip: reason } outside CI when unavailable, {} when available; when process.env.CI === "true" and unavailable it THROWS (in CI a backend is never skipped). */
export async function backendTestOptions(b: Backend): Promise<{ skip?: string }> {
  const reason = await unavailableReason(b);
  if (reason === null) return {};
  if (process.env.CI === "true") {
    throw new Error(`${b.name} backend unavailable in CI (CI=true never skips): ${reason}`);
  }
  console.warn(`# skipping ${b.name} tests: ${reason}`);
  return { skip: reason };
}
