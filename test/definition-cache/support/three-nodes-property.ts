/**
 * Three real server processes (`taskflow serve`) on one database, in two
 * deployments: (a) PostgreSQL with the Redis provider (one shared cache) and
 * coordination in Redis, (b) MariaDB with each node's memory provider and
 * coordination in MariaDB, no Redis at all.
 *
 * A fast-check property of ROUNDS rounds per deployment and mode: fast-check
 * draws the schedule — for each round the node that publishes, the key and a
 * small delay — and three publisher loops take rounds from it concurrently,
 * so publishes race each other on every node (POST
 * /v1/definitions/{key}/publish), while readers on all three nodes read GET
 * /v1/definitions/{key}/versions/latest without a pause. (A round is one
 * publish; rounds overlap, three at a time, rather than running in batches:
 * the same races at a third of the time.) Each publish is recorded with the version it got
 * and the moment its 201 arrived; each read with the moment it started, its
 * node and the version it saw (one monotonic clock, this process's).
 *
 * Property, strict mode: no read that STARTED after the publish of version v
 * of key k returned sees a version < v, on any node. Bounded mode: none that
 * started later than the publish's return + BOUND, where BOUND is the poll
 * (WF_DEFINITION_CACHE_POLL) + 500 ms slack for a loaded machine.
 *
 * A start (POST /v1/processes) on any node right after a publish returned
 * runs the new version. And the cache really served reads: with the versions table locked by
 * another session (no statement can read it), every node still answers every
 * key, with its latest version, within seconds; on (a) the shared Redis holds
 * entries under the deployment's cache prefix.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { Redis } from "ioredis";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase } from "../../support/backends.ts";
import { startServer, type ServerProcess } from "../../support/server-process.ts";
import { definitionDoc } from "./cache-nodes.ts";
import { holdTableLock } from "./table-lock.ts";
import { StaleReadChecker } from "./stale-read-checker.ts";

const API_KEY = "three-nodes-key-0123456789abcdefghij";
const TENANT = "acme";
const KEYS = ["alpha", "beta", "gamma"];
/** 1,000 rounds (publishes) per deployment and mode. */
const ROUNDS = 1000;
/** Publisher loops taking rounds concurrently: three publishes race at any moment. */
const PUBLISHERS = 3;
/** Reader loops per node, each going round the keys. */
const READERS_PER_NODE = 1;
/** The bounded mode's poll here: short, so the bound below is too. */
const POLL_MS = 200;
/** Bounded: a change is seen within the poll; 1 s slack for 3 nodes + another such file on 2 cores. */
const BOUNDED_SLACK_MS = 1000;

const modes = [
  { mode: "strict", boundMs: 0, skip: undefined },
  { mode: "bounded", boundMs: POLL_MS + BOUNDED_SLACK_MS, skip: undefined },
] as const;

export interface Deployment {
  name: string;
  db: "postgres" | "mysql";
  redis: boolean;
  env(ids: { keyPrefix: string; cachePrefix: string }): Record<string, string>;
}

export const deployments = {
  postgresRedis: {
    name: "(a) PostgreSQL, Redis provider, coordination redis",
    db: "postgres",
    redis: true,
    env: ({ keyPrefix, cachePrefix }) => ({
      WF_DEFINITION_CACHE: "redis",
      WF_COORDINATION: "redis",
      REDIS_URL: REDIS_TEST_URL,
      WF_KEY_PREFIX: keyPrefix,
      WF_DEFINITION_CACHE_PREFIX: cachePrefix,
    }),
  },
  mariadbMemory: {
    name: "(b) MariaDB, memory providers, coordination sql, no Redis",
    db: "mysql",
    redis: false,
    env: ({ keyPrefix, cachePrefix }) => ({
      WF_DEFINITION_CACHE: "memory",
      WF_COORDINATION: "sql",
      WF_KEY_PREFIX: keyPrefix,
      WF_DEFINITION_CACHE_PREFIX: cachePrefix,
    }),
  },
} satisfies Record<string, Deployment>;

async function call(node: ServerProcess, method: "GET" | "POST", path: string, body?: unknown) {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method,
    headers: {
      "x-api-key": API_KEY,
      "x-actor-id": "alice",
      "x-tenant-id": TENANT,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: r.status, body: await r.text() };
}

async function latestOf(node: ServerProcess, key: string): Promise<number> {
  const r = await call(node, "GET", `/v1/definitions/${key}/versions/latest`);
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { version: number }).version;
}

async function publishOn(node: ServerProcess, key: string, tag: string): Promise<number> {
  const r = await call(node, "POST", `/v1/definitions/${key}/publish`, definitionDoc(key, tag));
  assert.equal(r.status, 201, r.body);
  return (JSON.parse(r.body) as { version: number }).version;
}

/** Reads on every node until stopped; each read recorded when it ends, stamped with its start. */
function startReaders(nodes: ServerProcess[], checker: StaleReadChecker) {
  let running = true;
  const failures: unknown[] = [];
  const loops = nodes.flatMap((node, n) =>
    Array.from({ length: READERS_PER_NODE }, async (_, i) => {
      for (let j = i; running; j++) {
        const key = KEYS[j % KEYS.length]!;
        const start = performance.now();
        try {
          const version = await latestOf(node, key);
          checker.read({ node: n, key, start, end: performance.now(), version });
        } catch (e) {
          failures.push(e);
          return;
        }
      }
    }),
  );
  return {
    async stop(): Promise<void> {
      running = false;
      await Promise.all(loops);
      if (failures.length > 0) throw failures[0];
    },
  };
}

/** The property's suites (strict and bounded) on one deployment; one test file per deployment. */
export async function threeNodeSuites(d: Deployment): Promise<void> {
  for (const m of modes) {
    const dbOptions = await backendTestOptions({ name: d.db });
    const options =
      m.skip !== undefined
        ? { skip: m.skip }
        : dbOptions.skip || !d.redis
          ? dbOptions
          : await coordinationTestOptions("redis");

    void describe(`three nodes, ${d.name}, ${m.mode} consistency`, options, () => {
      let db: { url: string; drop(): Promise<void> };
      const nodes: ServerProcess[] = [];
      const ids = {
        keyPrefix: `tftest:${randomBytes(6).toString("hex")}:`,
        cachePrefix: `tftest:defs:${randomBytes(6).toString("hex")}:`,
      };

      before(async () => {
        db = await createTestDatabase({ name: d.db });
        const env = {
          DATABASE_URL: db.url,
          WF_API_KEYS: API_KEY,
          NODE_ENV: "production",
          LOG_LEVEL: "warn",
          // Load shedding is not under test: three nodes and the test share 2 cores.
          WF_MAX_EVENT_LOOP_DELAY: "0",
          WF_DEFINITION_CACHE_CONSISTENCY: m.mode,
          WF_DEFINITION_CACHE_POLL: String(POLL_MS),
          ...d.env(ids),
        };
        // One after the other: the first applies the migrations, and three tsx starts side by
        // side on 2 busy cores outran the 60 s start timeout.
        for (let i = 0; i < 3; i++) nodes.push(await startServer(env));
        for (const key of KEYS) await publishOn(nodes[0]!, key, "v1");
      });

      after(async () => {
        await Promise.all(nodes.map((n) => n.stop()));
        if (d.redis) {
          await deleteRedisPrefix(ids.keyPrefix);
          await deleteRedisPrefix(ids.cachePrefix);
        }
        await db?.drop();
      });

      void it(`${ROUNDS} rounds, ${PUBLISHERS} publishers racing: no read that started after a publish returned sees an older version`, async () => {
        const checker = new StaleReadChecker(m.boundMs);
        for (const key of KEYS) checker.published({ key, version: 1, returned: performance.now() });
        const readers = startReaders(nodes, checker);
        const round = fc.record({
          node: fc.nat(nodes.length - 1),
          key: fc.constantFrom(...KEYS),
          delayMs: fc.nat(10),
        });
        // The schedule is drawn by fast-check (a seed printed on failure replays the same
        // schedule; the races it met do not replay, so there is nothing to shrink).
        const seed = Date.now() ^ (Math.random() * 0x7fffffff);
        const [schedule] = fc.sample(fc.array(round, { minLength: ROUNDS, maxLength: ROUNDS }), {
          seed,
          numRuns: 1,
        });
        let next = 0;
        const publisher = async (): Promise<void> => {
          for (let i = next++; i < ROUNDS; i = next++) {
            const p = schedule![i]!;
            await new Promise((r) => setTimeout(r, p.delayMs));
            const version = await publishOn(nodes[p.node]!, p.key, `r${i}`);
            checker.published({ key: p.key, version, returned: performance.now() });
            if (i % 50 === 0) checker.check();
          }
        };
        try {
          await Promise.all(Array.from({ length: PUBLISHERS }, publisher));
        } catch (e) {
          throw new Error(`schedule seed ${seed}: ${e instanceof Error ? e.message : String(e)}`, {
            cause: e,
          });
        } finally {
          await readers.stop();
        }
        checker.check();
        const s = checker.summary();
        console.log(`# ${d.name}, ${m.mode}: ${JSON.stringify(s)}`);
        assert.equal(s.publishes, KEYS.length + ROUNDS);
        assert.ok(s.reads >= 3 * ROUNDS, `readers kept reading: ${s.reads} reads`);
        assert.ok(s.readsRacingAPublish > 0, "some reads raced publishes (the property bit)");
      });

      void it(`POST /v1/processes on every node ${m.boundMs === 0 ? "right after" : "within the bound after"} a publish starts the new version`, async () => {
        for (let i = 0; i < 6; i++) {
          const from = nodes[i % 3]!;
          const version = await publishOn(from, "alpha", `start-${i}`);
          // The publishing node sees its own change at once; in bounded mode the others may
          // lag by up to the bound (strict: 0, no wait).
          const others = nodes.filter((n) => n !== from);
          await startsVersion(from, version);
          await new Promise((r) => setTimeout(r, m.boundMs));
          for (const node of others) await startsVersion(node, version);
        }
      });

      async function startsVersion(node: ServerProcess, version: number): Promise<void> {
        const r = await call(node, "POST", "/v1/processes", { processKey: "alpha" });
        assert.equal(r.status, 201, r.body);
        assert.equal((JSON.parse(r.body) as { version: number }).version, version);
      }

      void it("the cache served reads: with the versions table locked every node still answers", async () => {
        const expected = await Promise.all(KEYS.map((k) => latestOf(nodes[0]!, k)));
        // Fill every node's cache (memory: each its own) at the current revision.
        for (const node of nodes) for (const key of KEYS) await latestOf(node, key);
        const lock = await holdTableLock(d.db, db.url, "definition_versions");
        try {
          for (const node of nodes) {
            for (const [i, key] of KEYS.entries()) {
              for (let n = 0; n < 3; n++) {
                const r = await fetch(
                  `http://127.0.0.1:${node.port}/v1/definitions/${key}/versions/latest`,
                  {
                    headers: { "x-api-key": API_KEY, "x-actor-id": "alice", "x-tenant-id": TENANT },
                    // A store read would wait for the lock; a cached read answers in milliseconds.
                    signal: AbortSignal.timeout(5000),
                  },
                );
                assert.equal(r.status, 200);
                assert.equal(((await r.json()) as { version: number }).version, expected[i]);
              }
            }
          }
        } finally {
          await lock.release();
        }
        if (d.redis) {
          const redis = new Redis(REDIS_TEST_URL);
          try {
            let cursor = "0";
            let found = 0;
            do {
              const [next, keys] = await redis.scan(
                cursor,
                "MATCH",
                `${ids.cachePrefix}*`,
                "COUNT",
                1000,
              );
              cursor = next;
              found += keys.length;
            } while (cursor !== "0");
            assert.ok(found > 0, `entries under ${ids.cachePrefix} in the shared Redis`);
          } finally {
            redis.disconnect();
          }
        }
      });
    });
  }
}
