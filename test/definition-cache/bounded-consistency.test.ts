/**
 * The bounded consistency mode on real databases, two "nodes" (two
 * CacheManagers, two consistencies, two pools where the backend allows) over
 * one database, with the signal the deployment would get
 * (open-consistency.ts's revisionSignalFor): LISTEN/NOTIFY on PostgreSQL, the
 * poll alone on SQLite and MariaDB, and Redis pub/sub on those two when Redis
 * is configured.
 *
 * - a hit costs node B no ledger call at all (a counting decorator counts every
 *   method call of its ledger);
 * - a change on node A reaches B's state() within pollMs + 500 ms on the poll
 *   alone, and within 500 ms with a push while the poll is a minute away (so
 *   only the push can explain it; it is milliseconds in practice);
 * - node A sees its own fence and its own completion as soon as each step
 *   returns, without any poll;
 * - a fence begun on A makes B bypass within the bound, and its completion
 *   moves B's revision within it;
 * - the ledger unreachable under B: within the poll B's reads reject (never a
 *   copy from memory), and once the database is back they are served again.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it, type TestContext } from "node:test";
import { memoryCacheProvider } from "../../src/adapters/definition-cache/memory-cache-provider.ts";
import { revisionSignalFor } from "../../src/adapters/definition-cache/open-consistency.ts";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { boundedConsistency } from "../../src/engine/definition-cache/bounded-consistency.ts";
import type { CacheConsistency } from "../../src/engine/definition-cache/cache-consistency.ts";
import type { CacheLedger } from "../../src/engine/definition-cache/cache-ledger-port.ts";
import { CacheManager, type CachedRead } from "../../src/engine/definition-cache/cache-manager.ts";
import { ledgerOwner } from "../../src/engine/definition-cache/ledger-owner.ts";
import type { RevisionSignalKind } from "../../src/engine/definition-cache/revision-signal-port.ts";
import {
  coordinationTestOptions,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase, type Backend } from "../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy.ts";
import { recordingLog } from "./support/cache-providers.ts";

interface Variant {
  backend: Backend["name"];
  /** The signal revisionSignalFor must pick for this deployment. */
  signal: RevisionSignalKind;
  /** WF_COORDINATION: redis makes MariaDB and SQLite deployments use Redis pub/sub. */
  coordination: "sql" | "redis";
}

const variants: Variant[] = [
  { backend: "sqlite", signal: "poll", coordination: "sql" },
  { backend: "sqlite", signal: "redis", coordination: "redis" },
  { backend: "postgres", signal: "postgres", coordination: "sql" },
  { backend: "mysql", signal: "poll", coordination: "sql" },
  { backend: "mysql", signal: "redis", coordination: "redis" },
];

/** Fast enough to keep the poll cases short; the poll bound is this + 500 ms. */
const FAST_POLL = 200;
/** No poll within a test: what happens is the push's (or changed()'s) doing. */
const NO_POLL = 60_000;
const POLL_SLACK = 500;
const PUSH_BOUND = 500;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves with the ms it took for `cond` to hold; rejects naming `what` after `ms`. */
async function within(what: string, ms: number, cond: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await cond()) return performance.now() - started;
    const spent = performance.now() - started;
    if (spent > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
}

/** Counts every call of every ledger method, and passes it on. */
function countingLedger(inner: CacheLedger): { ledger: CacheLedger; calls: () => number } {
  let calls = 0;
  const ledger = new Proxy(inner, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { ledger, calls: () => calls };
}

interface Node {
  manager: CacheManager;
  consistency: CacheConsistency;
  calls: () => number;
  /** The store behind this node's reads: what the factory returns. */
  reads: number;
}

interface World {
  a: Node;
  b: Node;
  /** Node B's database connections (through a proxy on PostgreSQL and MariaDB). */
  proxyB: FaultProxy | null;
  /** Makes B's ledger unreachable; undefined once it cannot come back (SQLite: the handle closed). */
  cutB(): Promise<void>;
  /** Undoes cutB, where it can be undone. */
  restoreB: (() => void) | null;
}

/**
 * One migrated database per backend for the whole file (creating and
 * migrating one per test cost 3–4 s on PostgreSQL and MariaDB). The tests run
 * one after another and only compare revisions with earlier ones, so the
 * ledger rows an earlier test left do not matter; every fence is completed.
 */
const databases = new Map<Backend["name"], Promise<{ url: string; drop(): Promise<void> }>>();
after(async () => {
  for (const d of await Promise.allSettled(databases.values())) {
    if (d.status === "fulfilled") await d.value.drop();
  }
});

function sharedDatabase(name: Backend["name"]): Promise<{ url: string }> {
  let d = databases.get(name);
  if (d === undefined) {
    d = createTestDatabase({ name });
    databases.set(name, d);
  }
  return d;
}

/** The value "the store" holds; the factory of every read returns it. */
let storeValue = "v0";

const READ: CachedRead<string> = {
  view: "data",
  typeName: "Test|string",
  logical: { tenant: "t1", operation: "test.get", args: { id: "x" } },
};

async function read(node: Node): Promise<string> {
  return node.manager.read(READ, () => {
    node.reads++;
    return Promise.resolve(storeValue);
  });
}

async function withWorld(
  t: TestContext,
  v: Variant,
  pollMs: number,
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const test = await sharedDatabase(v.backend);
  const log = recordingLog();
  const prefix = `tftest:defs:${randomBytes(6).toString("hex")}:`;
  const toClose: (() => Promise<void>)[] = [];
  let proxyB: FaultProxy | null = null;
  try {
    const dbA = openDatabase(test.url, { poolSize: 4 });
    toClose.push(() => dbA.close());
    await dbA.migrate();
    let dbB: Database;
    if (v.backend === "sqlite") {
      // One process per SQLite file, one connection: both nodes share the handle
      // (see test/store/cache-ledger-contract.test.ts).
      dbB = dbA;
    } else {
      const u = new URL(test.url);
      const proxy = await startFaultProxy(u.hostname, Number(u.port));
      proxyB = proxy;
      toClose.push(() => proxy.close());
      const db = openDatabase(proxy.urlFor(test.url), { poolSize: 4 });
      toClose.push(() => db.close().catch(() => undefined));
      // A node reads the deployment's identity at start (migrate); this handle is on a database
      // A migrated, so it reads it without migrating (B's Redis channel carries it).
      await db.identify();
      dbB = db;
    }
    const config = {
      definitionCache: "memory" as const,
      definitionCachePrefix: prefix,
      coordination: v.coordination,
      redisUrl: REDIS_TEST_URL,
      redisSentinels: [],
      redisSentinelName: null,
    };
    const node = (db: Database): Node => {
      const counting = countingLedger(db.cacheLedger);
      const signal = revisionSignalFor(config, { ...db, cacheLedger: counting.ledger }, { log });
      assert.equal(signal.kind, v.signal, "the deployment's signal");
      const consistency = boundedConsistency({
        ledger: counting.ledger,
        signal,
        pollMs,
        log,
      });
      const manager = new CacheManager({
        provider: memoryCacheProvider({ defaults: { slidingMs: 60_000, absoluteMs: 0 }, log }),
        ledger: counting.ledger,
        consistency,
        enabled: true,
        prefix,
        deployment: () => dbA.deploymentId(),
        owner: ledgerOwner(),
        log,
      });
      toClose.push(() => manager.close());
      return { manager, consistency, calls: counting.calls, reads: 0 };
    };
    const a = node(dbA);
    const b = node(dbB);
    await a.consistency.start();
    await b.consistency.start();
    storeValue = "v0";
    await fn({
      a,
      b,
      proxyB,
      async cutB() {
        if (proxyB !== null) proxyB.refuse(true);
        else await dbB.close();
      },
      restoreB: proxyB === null ? null : () => proxyB!.refuse(false),
    });
    if (log.warnings.length > 0) t.diagnostic(`warnings: ${JSON.stringify(log.warnings)}`);
  } finally {
    for (const close of toClose.reverse()) await close().catch(() => undefined);
  }
}

/** Changes "the store" under a fence on `node`, as a publish does. */
const change = (node: Node, value: string) =>
  node.manager.mutate("workflow", () => {
    storeValue = value;
    return Promise.resolve();
  });

async function variantOptions(v: Variant): Promise<{ skip?: string }> {
  const db = await backendTestOptions({ name: v.backend });
  if (db.skip !== undefined || v.signal !== "redis") return db;
  return coordinationTestOptions("redis");
}

for (const v of variants) {
  void describe(`bounded consistency: ${v.backend}, signal ${v.signal}`, async () => {
    const opts = await variantOptions(v);
    const pushes = v.signal !== "poll";
    /** The poll that the visibility cases use, and the bound they assert. */
    const visibilityPoll = pushes ? NO_POLL : FAST_POLL;
    const bound = pushes ? PUSH_BOUND : FAST_POLL + POLL_SLACK;

    void it("a hit on node B makes no ledger call", opts, (t) =>
      withWorld(t, v, NO_POLL, async ({ b }) => {
        await change(b, "v1"); // a revision above 0, seen by B at once
        assert.equal(await read(b), "v1", "the miss fills");
        const before = b.calls();
        const hitsBefore = b.manager.stats.hits;
        for (let i = 0; i < 200; i++) assert.equal(await read(b), "v1");
        assert.equal(b.manager.stats.hits - hitsBefore, 200);
        assert.equal(b.calls() - before, 0, "ledger calls during 200 hits");
        assert.equal(b.reads, 1, "the store was read once");
      }),
    );

    void it(`a change on node A reaches node B's state within ${bound} ms`, opts, (t) =>
      withWorld(t, v, visibilityPoll, async ({ a, b }) => {
        assert.equal(await read(b), "v0");
        for (let i = 1; i <= 3; i++) {
          const before = (await b.consistency.state("data")).revision;
          await change(a, `v${i}`);
          const target = (await a.consistency.state("data")).revision;
          assert.ok(target > before);
          const ms = await within(`change ${i} at B`, bound, async () => {
            const s = await b.consistency.state("data");
            return s.revision === target && !s.fenced;
          });
          t.diagnostic(`change ${i} seen by B after ${ms.toFixed(1)} ms`);
          assert.equal(await read(b), `v${i}`, "B reads the new value under the new revision");
        }
      }),
    );

    void it("node A sees its own fence and completion at once (no poll)", opts, (t) =>
      withWorld(t, v, NO_POLL, async ({ a }) => {
        const before = await a.consistency.state("data");
        let during: { revision: number; fenced: boolean } | undefined;
        await a.manager.mutate("workflow", async () => {
          during = await a.consistency.state("data");
          storeValue = "mine";
        });
        assert.deepEqual(during, { revision: before.revision, fenced: true });
        const after = await a.consistency.state("data");
        assert.equal(after.fenced, false);
        assert.ok(after.revision > before.revision, "the completion moved A's revision");
        assert.equal((await a.consistency.state("routes")).revision, after.revision);
        assert.equal(await read(a), "mine");
      }),
    );

    void it(
      "a fence begun on A makes B bypass within the bound; completing it moves B",
      opts,
      (t) =>
        withWorld(t, v, visibilityPoll, async ({ a, b }) => {
          assert.equal(await read(b), "v0"); // cached on B
          let release!: () => void;
          const gate = new Promise<void>((r) => (release = r));
          const writing = a.manager.mutate("workflow", async () => {
            await gate;
            storeValue = "v1";
          });
          const fencedAfter = await within(
            "B fenced",
            bound,
            async () => (await b.consistency.state("data")).fenced,
          );
          t.diagnostic(`B bypasses ${fencedAfter.toFixed(1)} ms after the fence`);
          const bypasses = b.manager.stats.bypasses;
          const reads = b.reads;
          assert.equal(await read(b), "v0", "read from the store, not the cache");
          assert.equal(b.manager.stats.bypasses, bypasses + 1);
          assert.equal(b.reads, reads + 1);
          const fenced = await b.consistency.state("data");
          release();
          await writing;
          const completedAfter = await within("B past the fence", bound, async () => {
            const s = await b.consistency.state("data");
            return !s.fenced && s.revision > fenced.revision;
          });
          t.diagnostic(`B at the new revision ${completedAfter.toFixed(1)} ms after completion`);
          assert.equal(await read(b), "v1");
        }),
    );

    void it("the ledger unreachable under B: B's reads reject, never a copy", opts, (t) =>
      withWorld(t, v, FAST_POLL, async (w) => {
        const { b } = w;
        assert.equal(await read(b), "v0");
        assert.equal(await read(b), "v0", "a hit from memory");
        await w.cutB();
        // A refresh fails within the poll; from then on every read asks the ledger.
        await within("B's reads reject", FAST_POLL + POLL_SLACK, async () => {
          try {
            await read(b);
            return false;
          } catch {
            return true;
          }
        });
        const reads = b.reads;
        for (let i = 0; i < 10; i++) {
          await assert.rejects(read(b));
          await assert.rejects(b.consistency.state("routes"));
          await sleep(FAST_POLL / 4);
        }
        assert.equal(b.reads, reads, "nothing served, not even from the store");
        if (w.restoreB === null) return; // SQLite: the handle is gone for good
        w.restoreB();
        await within("B served again", 15_000, async () => {
          try {
            return (await read(b)) === "v0";
          } catch {
            return false;
          }
        });
        // From memory again: only the poll reads the ledger (two calls per refresh), not each read.
        const calls = b.calls();
        const since = performance.now();
        for (let i = 0; i < 50; i++) assert.equal(await read(b), "v0");
        const polls = Math.ceil((performance.now() - since) / FAST_POLL) + 1;
        assert.ok(
          b.calls() - calls <= 2 * polls,
          `${b.calls() - calls} ledger calls for 50 reads (${polls} polls at most)`,
        );
      }),
    );
  });
}
