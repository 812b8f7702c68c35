/**
 * The coordination backends every coordination contract suite runs against,
 * unchanged: memory, SQLite, PostgreSQL, MariaDB and Redis, each isolated per
 * test (a fresh database, or a fresh Redis key prefix).
 *
 * Redis is 127.0.0.1:6379 unless TF_TEST_REDIS_URL says otherwise. Like the
 * databases, an unreachable Redis skips outside CI and fails the run in CI.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import type { Coordination } from "../../../src/engine/coordination/coordination.ts";
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

async function probeRedis(): Promise<string | null> {
  const r = new Redis(REDIS_TEST_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
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

export async function openTestCoordination(
  name: CoordinationBackendName,
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
      const database = await createTestDatabase({ name });
      const openOne = async () => {
        const db = openDatabase(database.url);
        await db.migrate();
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
      const first = await openOne();
      return {
        coordination: first.coordination,
        keyPrefix,
        databaseUrl: database.url,
        openAnother: openOne,
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
