/**
 * What the cache benchmark measures against: one migrated database opened the
 * way a node opens it, with every statement its stores send counted (the
 * `onQuery` hook of openDatabase, i.e. Kysely's log), one published
 * definition with a realistic body (the leave-approval example), and a node's
 * definition cache built by the composition root (definitionCacheFor) for a
 * provider and consistency mode.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import { parse } from "yaml";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import type { CacheConsistencyMode } from "../../src/engine/definition-cache/cache-consistency.ts";
import {
  definitionCacheFor,
  type DefinitionCacheParts,
} from "../../src/composition/definition-cache-for.ts";
import type { CacheProviderKind } from "../../src/engine/definition-cache/cache-provider-port.ts";
import {
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../../test/coordination/support/coordination-backends.ts";
import { createTestDatabase, type Backend } from "../../test/support/backends.ts";

export const TENANT = "bench";
const DEFINITION_FILE = new URL(
  "../../examples/definitions/leave-approval/definition.yaml",
  import.meta.url,
);

export interface LookupDatabase {
  readonly backend: Backend["name"];
  readonly database: Database;
  readonly url: string;
  readonly key: string;
  /** The published version's number. */
  readonly version: number;
  /** Its body as stored (JSON), for the report. */
  readonly bodyBytes: number;
  /** Statements sent from inside `inLookups` since open (the lookups' own). */
  queries(): number;
  /** Statements sent from anywhere else: a bounded cache's poll or listener, set-up. */
  backgroundQueries(): number;
  /**
   * Runs `fn` so that the statements it causes — in its own async context and
   * every one it starts — count as the lookups'; a timer's poll of an open
   * cache does not, whichever row it happens to fall in.
   */
  inLookups<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function openLookupDatabase(backend: Backend["name"]): Promise<LookupDatabase> {
  const created = await createTestDatabase({ name: backend });
  let count = 0;
  let background = 0;
  const scope = new AsyncLocalStorage<true>();
  let database: Database | undefined;
  try {
    // Migrated by a handle of its own: migrate() also starts PostgreSQL's statistics
    // keeper, whose statements every few seconds are no lookup's and would be counted.
    const migrator = openDatabase(created.url);
    await migrator.migrate().finally(() => migrator.close());
    database = openDatabase(created.url, {
      // Called in the async context of the statement's caller (Kysely logs after its await).
      onQuery: () => (scope.getStore() === true ? count++ : background++),
    });
    // The cache's keys carry it; read before any lookup is counted.
    await database.identify();
    const definition = parse(readFileSync(DEFINITION_FILE, "utf8")) as Record<string, unknown> & {
      key: string;
      name?: string;
    };
    const key = definition.key;
    const published = await database.definitions.publishVersion({
      tenantId: TENANT,
      key,
      name: definition.name ?? key,
      definition,
      createdBy: "bench",
      at: Date.now(),
    });
    if (!published.published) throw new Error("the bench definition was not published");
    const stored = await database.definitions.latestPublished(TENANT, key);
    const opened = database;
    return {
      backend,
      database: opened,
      url: created.url,
      key,
      version: published.version,
      bodyBytes: JSON.stringify(stored).length,
      queries: () => count,
      backgroundQueries: () => background,
      inLookups: (fn) => scope.run(true, fn),
      async close() {
        await opened.close();
        await created.drop();
      },
    };
  } catch (e) {
    await database?.close().catch(() => undefined);
    await created.drop();
    throw e;
  }
}

export interface CacheVariant {
  /** "none": WF_DEFINITION_CACHE_ENABLED=false, every read is the store's. */
  readonly provider: CacheProviderKind | "none";
  readonly mode: CacheConsistencyMode;
}

export interface OpenedCache {
  readonly parts: DefinitionCacheParts;
  close(): Promise<void>;
}

/**
 * A node's definition cache for `variant`, started. Rejects when the mode is
 * not built on this branch (openConsistency refuses it): the caller reports
 * the rows as not available.
 */
export async function openCache(db: LookupDatabase, variant: CacheVariant): Promise<OpenedCache> {
  const prefix = `tfbench:cache:${randomBytes(6).toString("hex")}:`;
  const config = loadConfig({
    env: {},
    requireApiKeys: false,
    overrides: {
      databaseUrl: db.url,
      logLevel: "silent",
      redisUrl: REDIS_TEST_URL,
      definitionCache: variant.provider === "none" ? "memory" : variant.provider,
      definitionCacheEnabled: variant.provider !== "none",
      definitionCacheConsistency: variant.mode,
      definitionCachePrefix: prefix,
      // The bounded mode's fallback poll (one statement per interval per node, whatever the
      // lookup rate) at its longest, so it cannot blur the per-hit count of a few seconds' rows.
      definitionCachePoll: 60_000,
    },
  });
  const coordination = openCoordination({ kind: "memory", keyPrefix: prefix });
  // A warning here means Redis failed under the bench: the figures would be the store's.
  const log = { warn: (fields: unknown, message: string) => console.warn(message, fields) };
  let parts: DefinitionCacheParts | undefined;
  const close = async () => {
    await parts?.manager.close();
    await coordination.close();
    if (variant.provider === "redis") await deleteRedisPrefix(prefix);
  };
  try {
    parts = definitionCacheFor(config, db.database, coordination, { log });
    await parts.manager.consistency.start();
    return { parts, close };
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
}

/** null when the Redis the bench uses answers; otherwise why not. */
export async function redisUnavailable(): Promise<string | null> {
  const r = new Redis(REDIS_TEST_URL, { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await r.connect();
    await r.ping();
    return null;
  } catch (e) {
    return `Redis at ${new URL(REDIS_TEST_URL).host}: ${(e as Error).message}`;
  } finally {
    r.disconnect();
  }
}
