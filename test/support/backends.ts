/**
 * The database backends tests run against, and how to get a fresh database on
 * each. Shared by the store contract tests and the HTTP tests.
 *
 * Servers: admin-connections.ts. In CI (CI=true) an unreachable server fails
 * the run instead of skipping.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MYSQL_ADMIN_URL,
  POSTGRES_ADMIN_URL,
  SLOW_SERVER_TIMEOUT_MS,
  withDatabase,
  withMysqlAdmin,
  withPostgresAdmin,
} from "./admin-connections.ts";
import {
  copyMysqlTemplate,
  copyPostgresTemplate,
  copySqliteTemplate,
  templateRun,
} from "./template-databases.ts";

export interface Backend {
  name: "sqlite" | "postgres" | "mysql";
}

export const backends: Backend[] = [{ name: "sqlite" }, { name: "postgres" }, { name: "mysql" }];

/**
 * A down server should cost a test run seconds, not the OS connect timeout: a
 * stopped local server refuses at once, so the probe's first try is short; one
 * that times out is tried once more with SLOW_SERVER_TIMEOUT_MS.
 */
const PROBE_TIMEOUT_MS = 3000;

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

/**
 * Creates an isolated database (SQLite: a temp file; PostgreSQL and MariaDB: a
 * database named tf_<random>) and returns its DATABASE_URL plus a drop() that
 * removes it. Under the runner it is a copy of the run's migrated template
 * (template-databases.ts), which the code under test migrates at start as it
 * would an empty one, finding nothing to do; `empty: true` (the migration
 * tests) or a file run on its own gets an empty database.
 */
export async function createTestDatabase(
  b: Backend,
  options: { empty?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = freshName();
  const run = options.empty === true ? undefined : templateRun(b.name);
  switch (b.name) {
    case "sqlite": {
      const dir = await mkdtemp(join(tmpdir(), "taskflow-test-"));
      const path = join(dir, `${name}.db`);
      if (run !== undefined) await copySqliteTemplate(run, path);
      return {
        url: `sqlite:${path}`,
        drop: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case "postgres": {
      if (run !== undefined) await copyPostgresTemplate(run, name);
      else await withPostgresAdmin((c) => c.query(`create database ${name}`));
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
      if (run !== undefined) await copyMysqlTemplate(run, name);
      else await withMysqlAdmin((c) => c.query(`create database ${name}`));
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
