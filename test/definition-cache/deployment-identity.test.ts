/**
 * The deployment identity in every shared key (issue 21, item 4).
 *
 * - Every database gets its own random id with its schema (migration 013),
 *   the same however often it is migrated or opened again, on SQLite,
 *   PostgreSQL and MariaDB.
 * - Two PostgreSQL databases, one Redis, the SAME WF_DEFINITION_CACHE_PREFIX
 *   and WF_KEY_PREFIX on both (the default case: nobody set them), both at
 *   the same data revision: the node of database 2 answers `latest` with its
 *   own definition, not the one database 1's node cached under that revision;
 *   a lock held by database 1's node does not hold database 2's; every key
 *   either writes under the prefixes carries its database's id.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { Redis } from "ioredis";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";

const ACTOR = { tenantId: "acme", actorId: "alice" };
const KEY = "shared-key";

void describe("the deployment identity (migration 013)", () => {
  for (const b of backends) {
    void it(`one random id per database on ${b.name}, kept across migrations and handles`, async (t) => {
      const opts = await backendTestOptions(b);
      if (opts.skip !== undefined) return t.skip(opts.skip);
      const one = await createTestDatabase(b, { empty: true });
      const two = await createTestDatabase(b, { empty: true });
      const handles = [openDatabase(one.url)];
      try {
        const first = handles[0]!;
        assert.throws(() => first.deploymentId(), /migrate\(\) or identify\(\)/);
        assert.ok((await first.migrate()).includes("013_deployment_identity"));
        const id = first.deploymentId();
        assert.match(id, /^[0-9a-f]{32}$/);
        assert.deepEqual(await first.migrate(), []);
        assert.equal(first.deploymentId(), id);
        await first.close();
        handles.length = 0;
        // SQLite takes one process per file: the handles come one after the other.
        const again = openDatabase(one.url);
        handles.push(again);
        assert.equal(await again.identify(), id, "read from the database, not made anew");
        await again.close();
        handles.length = 0;
        const other = openDatabase(two.url);
        handles.push(other);
        await other.migrate();
        assert.notEqual(other.deploymentId(), id, "another database, another id");
      } finally {
        for (const h of handles) await h.close();
        await one.drop();
        await two.drop();
      }
    });
  }
});

void describe("two deployments on one Redis with the same prefixes", async () => {
  const pg = await backendTestOptions({ name: "postgres" });
  const opts = pg.skip !== undefined ? pg : await coordinationTestOptions("redis");

  void it(
    "never meet: each serves its own definition at the same revision, and locks apart",
    opts,
    async () => {
      // One prefix for both, as when neither deployment sets one; fresh only to keep test runs apart.
      const shared = `tftest:${randomBytes(6).toString("hex")}:`;
      const cachePrefix = `${shared}defs:`;
      const keyPrefix = `${shared}kv:`;
      const databases = [
        await createTestDatabase({ name: "postgres" }),
        await createTestDatabase({ name: "postgres" }),
      ];
      const nodes: Taskflow[] = [];
      const admin = new Redis(REDIS_TEST_URL);
      try {
        for (const db of databases) {
          const config = loadConfig({
            env: {},
            requireApiKeys: false,
            overrides: {
              databaseUrl: db.url,
              apiKeys: ["identity-key-0123456789abcdefghij"],
              logLevel: "silent",
              addr: "127.0.0.1:0",
              maxEventLoopDelay: 0,
              coordination: "redis",
              redisUrl: REDIS_TEST_URL,
              definitionCache: "redis",
              definitionCachePrefix: cachePrefix,
              keyPrefix,
            },
          });
          nodes.push(await createTaskflow(config));
        }
        const [one, two] = nodes as [Taskflow, Taskflow];
        // The same key published as often in both: the two ledgers reach the same revision.
        for (let v = 1; v <= 3; v++) {
          await one.definitions.publish(ACTOR, KEY, { ...minimal(KEY), name: `one v${v}` });
          await two.definitions.publish(ACTOR, KEY, { ...minimal(KEY), name: `two v${v}` });
        }
        const [revOne, revTwo] = await Promise.all(
          nodes.map((n) => n.definitionCache.consistency.state("data")),
        );
        assert.equal(revOne?.revision, revTwo?.revision, "both databases at one data revision");

        const latest = async (n: Taskflow) => (await n.definitions.get(ACTOR, KEY, "latest")).body;
        assert.match(await latest(one), /"name":"one v3"/);
        assert.match(await latest(one), /"name":"one v3"/);
        assert.ok(one.definitionCache.stats.hits >= 1, "database 1's definition is in Redis");
        const misses = two.definitionCache.stats.misses;
        assert.match(await latest(two), /"name":"two v3"/, "database 2 serves its own definition");
        assert.equal(two.definitionCache.stats.misses, misses + 1, "a miss, not database 1's hit");
        assert.match(await latest(two), /"name":"two v3"/);

        // Coordination: one lock name, one tenant, two deployments: both get it.
        const held = await one.coordination.locks.acquire("acme", "report", { leaseMs: 30_000 });
        assert.ok(held !== null);
        const other = await two.coordination.locks.acquire("acme", "report", { leaseMs: 30_000 });
        assert.ok(other !== null, "database 2's lock is not database 1's");
        await held.release();
        await other.release();

        // Every key under the prefixes names its deployment.
        const ids: string[] = [];
        for (const db of databases) {
          const handle = openDatabase(db.url);
          ids.push(await handle.identify());
          await handle.close();
        }
        const keys = await admin.keys(`${shared}*`);
        assert.ok(keys.length > 0);
        const named = (k: string) =>
          ids.some(
            (id) => k.startsWith(`${cachePrefix}v2:${id}:`) || k.startsWith(`${keyPrefix}${id}:`),
          );
        assert.deepEqual(
          keys.filter((k) => !named(k)),
          [],
          "a key without its deployment's id",
        );
      } finally {
        admin.disconnect();
        await Promise.all(nodes.map((n) => n.close()));
        await deleteRedisPrefix(shared);
        for (const db of databases) await db.drop();
      }
    },
  );
});
