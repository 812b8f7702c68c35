/**
 * Hook routes keep the guarantee of every other definition read while
 * another write's fence is open (issue 21, item 14). Two createTaskflow
 * nodes, A and B, on one database, in three deployments: PostgreSQL with the
 * Redis provider and Redis coordination (strict), MariaDB with each node's
 * memory provider and SQL coordination (strict), and MariaDB without Redis in
 * the bounded mode (the poll alone).
 *
 * - A slow publish in tenant t2: a session holds t2's revision row (the lock
 *   every publish of t2 queues on), so t2's publish sits between its fence
 *   and its completion for as long as the test likes. Meanwhile tenant t1
 *   publishes through A and B in turn, each a new version that also moves
 *   its route, and the other node's /v1/hooks is asked at once: it must
 *   start the new version on the new path and 404 the old one — strict: the
 *   very next request; bounded: within the poll plus slack.
 * - An orphaned fence: a writer (support/orphan-writer.ts, its own process)
 *   commits a publish of t2 and is killed with kill -9 before it completes
 *   its fence. Without waiting for the reaper, a publish of t1 through A is
 *   served by B's next hook request.
 *
 * While fenced, B's table is neither rebuilt nor recorded: B reads t1's
 * routes from the store (stats.fenced counts them).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { sql, type Kysely } from "kysely";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import type { ConfigOverrides } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const WRITER = "test/definition-cache/support/orphan-writer.ts";
const KEY = "routes-fenced-key-0123456789abcdef";
const ROUNDS = 6;
const POLL_MS = 200;
/** Bounded: the poll, one ledger read and slack for a loaded machine. */
const BOUND_MS = POLL_MS + 500;

const hookDoc = (key: string, path: string, tag: string) => ({
  key,
  name: `${key} ${tag}`,
  start: "done",
  triggers: [{ method: "POST", path }],
  states: { done: { type: "end" } },
});

interface Setup {
  readonly name: string;
  readonly backend: Backend;
  readonly bounded: boolean;
  readonly redis: boolean;
}

const setups: readonly Setup[] = [
  {
    name: "PostgreSQL + Redis, strict",
    backend: { name: "postgres" },
    bounded: false,
    redis: true,
  },
  { name: "MariaDB + memory, strict", backend: { name: "mysql" }, bounded: false, redis: false },
  { name: "MariaDB, no Redis, bounded", backend: { name: "mysql" }, bounded: true, redis: false },
];

interface Nodes {
  readonly a: Taskflow;
  readonly b: Taskflow;
  /** A handle of its own on the database, as an operator's would be. */
  readonly db: Database;
  close(): Promise<void>;
}

async function start(s: Setup): Promise<Nodes> {
  const test = await createTestDatabase(s.backend);
  const prefix = `tftest:${Math.random().toString(16).slice(2, 10)}:`;
  const overrides: ConfigOverrides = {
    databaseUrl: test.url,
    apiKeys: [KEY],
    logLevel: "silent",
    rateLimit: false,
    addr: "127.0.0.1:0",
    maxEventLoopDelay: 0,
    keyPrefix: `${prefix}kv:`,
    definitionCachePrefix: `${prefix}defs:`,
    ...(s.redis
      ? { coordination: "redis", redisUrl: REDIS_TEST_URL, definitionCache: "redis" }
      : { coordination: "sql", redisUrl: null }),
    ...(s.bounded
      ? { definitionCacheConsistency: "bounded", definitionCachePoll: POLL_MS }
      : { definitionCacheConsistency: "strict" }),
  };
  const config = loadConfig({ env: {}, requireApiKeys: true, overrides });
  const nodes: Taskflow[] = [];
  const db = openDatabase(test.url);
  const close = async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await db.close();
    if (s.redis) await deleteRedisPrefix(prefix);
    await test.drop();
  };
  try {
    for (let i = 0; i < 2; i++) nodes.push(await createTaskflow(config));
  } catch (e) {
    await close();
    throw e;
  }
  return { a: nodes[0]!, b: nodes[1]!, db, close };
}

const headers = (tenant: string) => ({
  "x-api-key": KEY,
  "x-actor-id": "alice",
  "x-tenant-id": tenant,
});

async function publish(node: Taskflow, tenant: string, key: string, doc: object) {
  const r = await node.server.inject({
    method: "POST",
    url: `/v1/definitions/${key}/publish`,
    headers: headers(tenant),
    payload: doc,
  });
  assert.equal(r.statusCode, 201, r.body);
  return r.json<{ version: number }>().version;
}

/** The hook's status and, for a 202, the version it started. */
async function hook(node: Taskflow, tenant: string, path: string) {
  const r = await node.server.inject({
    method: "POST",
    url: `/v1/hooks${path}`,
    headers: headers(tenant),
  });
  return {
    status: r.statusCode,
    version: r.statusCode === 202 ? r.json<{ version: number }>().version : null,
  };
}

/** Strict: the first request after the publish; bounded: the first at or after the bound. */
async function servedAfter(s: Setup, node: Taskflow, tenant: string, path: string) {
  if (s.bounded) await sleep(BOUND_MS);
  return hook(node, tenant, path);
}

/** Rounds of t1 publishes through A and B in turn, each read at once on the other node. */
async function rounds(s: Setup, n: Nodes, reportTo: string[]): Promise<void> {
  let previous: string | null = null;
  for (let round = 1; round <= ROUNDS; round++) {
    const [writer, reader] = round % 2 === 1 ? [n.a, n.b] : [n.b, n.a];
    const path = `/fenced/r${round}`;
    const version = await publish(writer, "t1", "flow", hookDoc("flow", path, `r${round}`));
    const served = await servedAfter(s, reader, "t1", path);
    assert.deepEqual(served, { status: 202, version }, `round ${round}: the new version`);
    if (previous !== null) {
      const old = await hook(reader, "t1", previous);
      assert.equal(old.status, 404, `round ${round}: the old path is gone`);
    }
    previous = path;
  }
  reportTo.push(`${ROUNDS} rounds fresh`);
}

async function openFences(db: Database): Promise<number> {
  return (await db.cacheLedger.listIncomplete()).length;
}

/** Starts the orphan writer for t2; resolves once its publish committed (fence still open). */
async function orphanWriter(databaseUrl: string): Promise<ChildProcess> {
  const config = {
    databaseUrl,
    tenantId: "t2",
    key: "slow",
    definition: hookDoc("slow", "/slow/2", "v2"),
  };
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, JSON.stringify(config)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout });
  const first = await Promise.race([
    once(lines, "line").then(([l]) => String(l)),
    once(child, "exit").then(([code]) => `{"error":"exited with ${String(code)}"}`),
    sleep(30_000, undefined, { ref: false }).then(() => '{"error":"no commit within 30 s"}'),
  ]);
  lines.close();
  if (!first.includes('"committed"')) {
    child.kill("SIGKILL");
    throw new Error(`the writer did not commit: ${first}`);
  }
  return child;
}

for (const s of setups) {
  const options = await backendTestOptions(s.backend);
  const redisOptions =
    s.redis && options.skip === undefined ? await coordinationTestOptions("redis") : {};
  const opts = options.skip !== undefined ? options : redisOptions;

  void describe(`hook routes while another write is fenced: ${s.name}`, () => {
    void it(
      "a slow publish in tenant t2 does not hold tenant t1's routes on any node",
      opts,
      async (t) => {
        const n = await start(s);
        const notes: string[] = [];
        try {
          await publish(n.a, "t2", "slow", hookDoc("slow", "/slow/1", "v1"));
          const kysely = n.db.coordinationContext.db as Kysely<unknown>;
          let release!: () => void;
          const released = new Promise<void>((r) => (release = r));
          let locked!: () => void;
          const isLocked = new Promise<void>((r) => (locked = r));
          // t2's revision row, held by another session: t2's next publish waits inside its fence.
          const holder = kysely.transaction().execute(async (trx) => {
            await sql`select tenant_id from definition_tenants where tenant_id = ${"t2"} for update`.execute(
              trx,
            );
            locked();
            await released;
          });
          await isLocked;
          const slow = publish(n.a, "t2", "slow", hookDoc("slow", "/slow/2", "v2"));
          const heldAt = Date.now();
          try {
            for (let i = 0; i < 200 && (await openFences(n.db)) === 0; i++) await sleep(10);
            assert.equal(await openFences(n.db), 1, "t2's publish holds its fence open");
            const fencedBefore = n.a.triggerRoutes.stats.fenced + n.b.triggerRoutes.stats.fenced;
            await rounds(s, n, notes);
            assert.equal(await openFences(n.db), 1, "t2's fence was open the whole time");
            const fenced =
              n.a.triggerRoutes.stats.fenced + n.b.triggerRoutes.stats.fenced - fencedBefore;
            assert.ok(fenced > 0, "read from the store while fenced");
            notes.push(`t2 fenced for ${Date.now() - heldAt} ms; ${fenced} lookups from the store`);
          } finally {
            release();
            await holder;
          }
          assert.equal(await slow, 2, "t2's publish completes once its row is free");
          const t2 = await servedAfter(s, n.b, "t2", "/slow/2");
          assert.deepEqual(t2, { status: 202, version: 2 });
          t.diagnostic(notes.join("; "));
        } finally {
          await n.close();
        }
      },
    );

    void it(
      "an orphaned fence (its writer killed -9) does not hold the routes until it is reaped",
      opts,
      async (t) => {
        const n = await start(s);
        let child: ChildProcess | undefined;
        try {
          await publish(n.a, "t1", "flow", hookDoc("flow", "/orphan/0", "r0"));
          assert.equal((await servedAfter(s, n.b, "t1", "/orphan/0")).status, 202);
          child = await orphanWriter(n.db.coordinationContext.databaseUrl);
          const exited = once(child, "exit");
          child.kill("SIGKILL");
          await exited;
          child = undefined;
          const killedAt = Date.now();
          assert.equal(await openFences(n.db), 1, "the dead writer's fence is open");
          const version = await publish(n.a, "t1", "flow", hookDoc("flow", "/orphan/1", "r1"));
          const served = await servedAfter(s, n.b, "t1", "/orphan/1");
          assert.deepEqual(served, { status: 202, version });
          assert.equal((await hook(n.b, "t1", "/orphan/0")).status, 404);
          // t2's committed version is served too: the store is what answers while fenced.
          assert.deepEqual(await hook(n.b, "t2", "/slow/2"), { status: 202, version: 1 });
          const age = Date.now() - killedAt;
          // The reaper needs 6 s of the owner's silence: before that the fence is surely open.
          if (age < 5_000) assert.equal(await openFences(n.db), 1, "served before the reaper");
          t.diagnostic(`served ${age} ms after the kill, before the reaper`);
        } finally {
          child?.kill("SIGKILL");
          await n.close();
        }
      },
    );
  });
}
