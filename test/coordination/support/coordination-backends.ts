/**
 * The coordination backends every coordination contract suite runs against,
 * unchanged: memory, SQLite, PostgreSQL, MariaDB and Redis, each isolated per
 * test by a fresh key prefix, and on the SQL backends by a fresh database
 * unless the file shares one (shareOneDatabasePerBackend).
 *
 * Redis is 127.0.0.1:6379 unless TF_TEST_REDIS_URL says otherwise. Like the
 * databases, an unreachable Redis skips outside CI and fails the run in CI.
 */
import { randomBytes } from "node:crypto";
import { after } from "node:test";
import { Redis } from "ioredis";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import type { Coordination } from "../../../src/engine/coordination/coordination-port.ts";
import { backendTestOptions, createTestDatabase } from "../../support/backends.ts";

export type CoordinationBackendName = "memory" | "sqlite" | "postgres" | "mysql" | "redis";

export const coordinationBackends: readonly CoordinationBackendName[] = [
  "memory",
  "sqlite",
  "postgres",
  "mysql",
  "redis",
];

export const REDIS_TEST_URL = process.env.TF_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestCoordination {
  coordination: Coordination;
  keyPrefix: string;
  /** The store's DATABASE_URL on the SQL backends (to open a second node on it); null otherwise. */
  databaseUrl: string | null;
  /** Opens another coordination on the same backend and prefix (a second node in this process). */
  openAnother(): Promise<{ coordination: Coordination; close(): Promise<void> }>;
  close(): Promise<void>;
}

const freshPrefix = () => `tftest:${randomBytes(6).toString("hex")}:`;

let redisProbe: Promise<string | null> | undefined;

/** A refused connection is a missing server; a timed-out one a slow machine: asked again, with longer. */
async function probeRedis(): Promise<string | null> {
  const first = await probeRedisOnce(2000);
  return first !== null && /timeout|ETIMEDOUT/i.test(first) ? probeRedisOnce(15_000) : first;
}

async function probeRedisOnce(connectTimeout: number): Promise<string | null> {
  const r = new Redis(REDIS_TEST_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout,
  });
  try {
    await r.connect();
    await r.ping();
    return null;
  } catch (e) {
    return `Redis at ${new URL(REDIS_TEST_URL).host} unreachable: ${(e as Error).message}`;
  } finally {
    r.disconnect();
  }
}

/** node:test options for a backend: skip outside CI when its server is down; throw in CI. */
export async function coordinationTestOptions(
  name: CoordinationBackendName,
): Promise<{ skip?: string }> {
  if (name === "memory") return {};
  if (name !== "redis") return backendTestOptions({ name });
  redisProbe ??= probeRedis();
  const reason = await redisProbe;
  if (reason === null) return {};
  if (process.env.CI === "true") {
    throw new Error(`redis backend unavailable in CI (CI=true never skips): ${reason}`);
  }
  console.warn(`# skipping redis tests: ${reason}`);
  return { skip: reason };
}

type SqlBackendName = "sqlite" | "postgres" | "mysql";
type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

/** The file's shared databases, once shareOneDatabasePerBackend() was called; null otherwise. */
let sharedDatabases: Map<SqlBackendName, Promise<TestDatabase>> | null = null;

/**
 * Makes the SQL backends of this test file (one process) share one migrated
 * database per backend, created on first use and dropped after the file's
 * last test. Creating and migrating a database per test cost most of the
 * contract suites' time (about 300 databases); the coordination is namespaced
 * by key prefix and tenant, so a fresh prefix per test isolates it just as
 * well. A case whose assertion sees every prefix (the counter and cache
 * cleanup deletes expired rows of all prefixes) asks for its own database:
 * `openTestCoordination(name, { ownDatabase: true })`.
 */
export function shareOneDatabasePerBackend(): void {
  if (sharedDatabases !== null) return;
  const databases = new Map<SqlBackendName, Promise<TestDatabase>>();
  sharedDatabases = databases;
  after(async () => {
    sharedDatabases = null;
    const all = await Promise.allSettled(databases.values());
    for (const d of all) if (d.status === "fulfilled") await d.value.drop();
  });
}

async function migratedDatabase(name: SqlBackendName): Promise<TestDatabase> {
  const database = await createTestDatabase({ name });
  const db = openDatabase(database.url);
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
  return database;
}

/** A database for one test: the file's shared one, or its own (dropped with the test's coordination). */
async function databaseFor(
  name: SqlBackendName,
  ownDatabase: boolean,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (ownDatabase || sharedDatabases === null) return migratedDatabase(name);
  let shared = sharedDatabases.get(name);
  if (!shared) {
    shared = migratedDatabase(name);
    sharedDatabases.set(name, shared);
  }
  const { url } = await shared;
  return { url, drop: () => Promise.resolve() };
}

export async function openTestCoordination(
  name: CoordinationBackendName,
  options: { ownDatabase?: boolean } = {},
): Promise<TestCoordination> {
  const keyPrefix = freshPrefix();
  switch (name) {
    case "memory": {
      const coordination = openCoordination({ kind: "memory", keyPrefix });
      return {
        coordination,
        keyPrefix,
        databaseUrl: null,
        openAnother: () => Promise.reject(new Error("memory coordination is one process")),
        close: () => coordination.close(),
      };
    }
    case "redis": {
      const open = () => {
        const c = openCoordination({ kind: "redis", keyPrefix, redisUrl: REDIS_TEST_URL });
        return { coordination: c, close: () => c.close() };
      };
      const first = open();
      return {
        coordination: first.coordination,
        keyPrefix,
        databaseUrl: null,
        openAnother: () => Promise.resolve(open()),
        async close() {
          await first.close();
          await deleteRedisPrefix(keyPrefix);
        },
      };
    }
    default: {
      // Migrated once when created: every node here opens an up-to-date schema.
      const database = await databaseFor(name, options.ownDatabase === true);
      const openOne = () => {
        const db = openDatabase(database.url);
        const coordination = openCoordination({
          kind: "sql",
          keyPrefix,
          sql: db.coordinationContext,
        });
        return {
          coordination,
          async close() {
            await coordination.close();
            await db.close();
          },
        };
      };
      const first = openOne();
      return {
        coordination: first.coordination,
        keyPrefix,
        databaseUrl: database.url,
        openAnother: () => Promise.resolve(openOne()),
        async close() {
          await first.close();
          await database.drop();
        },
      };
    }
  }
}

export async function deleteRedisPrefix(prefix: string): Promise<void> {
  const r = new Redis(REDIS_TEST_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await r.del(...keys);
    } while (cursor !== "0");
  } finally {
    r.disconnect();
  }
}
