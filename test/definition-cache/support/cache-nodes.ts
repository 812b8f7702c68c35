/**
 * Two definition cache "nodes" in this process over one real database, built
 * from the real classes a server wires (definition-cache-for.ts): each node
 * its own CacheManager and CachedDefinitionStore over the SQL store and the
 * SQL ledger, with its own memory provider or one Redis shared by both (one
 * fresh key prefix). On PostgreSQL and MariaDB each node has its own pool, as
 * two processes would; SQLite allows one connection per file and process
 * (cache-ledger-contract.test.ts says why), so there both share one handle.
 *
 * Each node's factory is a GatedStore (gated-store.ts), so a test can count a
 * node's store reads, hold one of them, or fail a write.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { memoryCacheProvider } from "../../../src/adapters/definition-cache/memory-cache-provider.ts";
import { redisCacheProvider } from "../../../src/adapters/definition-cache/redis-cache-provider.ts";
import { memoryCoordination } from "../../../src/adapters/coordination/memory/memory-coordination.ts";
import { openDatabase, type Database } from "../../../src/adapters/store/open-database.ts";
import { CacheManager } from "../../../src/engine/definition-cache/cache-manager.ts";
import type { CacheProvider } from "../../../src/engine/definition-cache/cache-provider-port.ts";
import { CachedDefinitionStore } from "../../../src/engine/definition-cache/cached-definition-store.ts";
import { strictConsistency } from "../../../src/engine/definition-cache/strict-consistency.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../../support/backends.ts";
import { GatedStore } from "./gated-store.ts";
import { recordingLog } from "./cache-providers.ts";

export type ProviderName = "memory" | "redis";

export interface CacheNode {
  readonly name: string;
  readonly manager: CacheManager;
  /** What the engine reads and publishes through. */
  readonly store: CachedDefinitionStore;
  /** The node's factory: the SQL store, counted and gateable. */
  readonly gate: GatedStore;
  /** This node's database handle (shared with the other node on SQLite). */
  readonly database: Database;
}

export interface CacheNodes {
  readonly a: CacheNode;
  readonly b: CacheNode;
  readonly url: string;
  /** The Redis key prefix of the shared provider (also used on memory, harmlessly). */
  readonly prefix: string;
}

/** Every variant the in-process tests run: three databases × two providers. */
export const variants: readonly { backend: Backend; provider: ProviderName }[] = (
  ["sqlite", "postgres", "mysql"] as const
).flatMap((name) =>
  (["memory", "redis"] as const).map((provider) => ({ backend: { name }, provider })),
);

/** node:test options: skip when a server is down (outside CI; backendTestOptions fail in CI). */
export async function variantOptions(v: {
  backend: Backend;
  provider: ProviderName;
}): Promise<{ skip?: string }> {
  const db = await backendTestOptions(v.backend);
  if (db.skip !== undefined || v.provider === "memory") return db;
  return coordinationTestOptions("redis");
}

const EXPIRY = { slidingMs: 60_000, absoluteMs: 600_000 };
const TENANT = "acme";
export { TENANT };

/** Opens two nodes on a fresh database, runs `fn`, and removes everything after. */
export async function withCacheNodes(
  v: { backend: Backend; provider: ProviderName },
  fn: (nodes: CacheNodes) => Promise<void>,
): Promise<void> {
  const test = await createTestDatabase(v.backend);
  const prefix = `tftest:defs:${randomBytes(6).toString("hex")}:`;
  const one = openDatabase(test.url, { poolSize: 4 });
  const two = v.backend.name === "sqlite" ? one : openDatabase(test.url, { poolSize: 4 });
  const redis: Redis[] = [];
  const coordination = memoryCoordination({ keyPrefix: prefix });
  const node = (name: string, database: Database): CacheNode => {
    let provider: CacheProvider;
    if (v.provider === "redis") {
      const connection = new Redis(REDIS_TEST_URL);
      redis.push(connection);
      provider = redisCacheProvider({
        redis: connection,
        ownsConnection: false,
        defaults: EXPIRY,
        log: recordingLog(),
      });
    } else {
      provider = memoryCacheProvider({ defaults: EXPIRY, log: recordingLog() });
    }
    const manager = new CacheManager({
      provider,
      ledger: database.cacheLedger,
      consistency: strictConsistency(database.cacheLedger),
      enabled: true,
      prefix,
      deployment: () => database.deploymentId(),
      owner: `test-host/${name}/boot`,
      log: recordingLog(),
    });
    const gate = new GatedStore(database.definitions);
    const store = new CachedDefinitionStore(gate, manager, {
      locks: coordination.locks,
      waitMs: 10_000,
    });
    return { name, manager, store, gate, database };
  };
  try {
    await one.migrate();
    if (two !== one) await two.migrate();
    await fn({ a: node("A", one), b: node("B", two), url: test.url, prefix });
  } finally {
    for (const r of redis) r.disconnect();
    await coordination.close();
    await one.close();
    if (two !== one) await two.close();
    await test.drop();
    if (v.provider === "redis") await deleteRedisPrefix(prefix);
  }
}

/** A valid definition document whose body tells the versions apart by `name`. */
export function definitionDoc(key: string, tag: string): Record<string, unknown> {
  return {
    key,
    name: tag,
    start: "review",
    states: {
      review: { type: "userTask", assignee: { user: "alice" }, title: "Review", next: "end" },
      end: { type: "end" },
    },
  };
}

/** Publishes through a node's cached store (fence → write → completion); the version it got. */
export async function publish(node: CacheNode, key: string, tag: string): Promise<number> {
  const outcome = await node.store.publishVersion({
    tenantId: TENANT,
    key,
    name: tag,
    definition: definitionDoc(key, tag),
    createdBy: "alice",
    at: Date.now(),
  });
  if (!outcome.published) throw new Error(`publish of ${key} (${tag}) refused: draft`);
  return outcome.version;
}

/** The latest published version a node serves for `key` (0: none). */
export async function latest(node: CacheNode, key: string): Promise<number> {
  return (await node.store.latestPublished(TENANT, key))?.version ?? 0;
}

/** A copy of a node's counters, to compare before and after a step. */
export const statsOf = (node: CacheNode) => ({ ...node.manager.stats });
