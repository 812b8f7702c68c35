/**
 * The Locks port's contract, run unchanged against every coordination
 * backend: memory, SQLite, PostgreSQL, MariaDB and Redis. Every test gets a
 * fresh coordination (a fresh database, or a fresh Redis key prefix); a
 * "second node" is a second coordination on the same backend and prefix
 * (openAnother), with its own connections.
 *
 * Skips say why: memory is one process, so it has no second node; only the
 * session-holding backends (PostgreSQL, MariaDB) lose locks with their
 * connection; memory and SQLite have no server to be down.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Redis } from "ioredis";
import { createConnection } from "mysql2/promise";
import pg from "pg";
import { openCoordination } from "../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { UnavailableError } from "../../src/domain/unavailable.ts";
import type { Coordination } from "../../src/engine/coordination/coordination-port.ts";
import type { LockHandle, Locks } from "../../src/engine/coordination/locks-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  shareOneDatabasePerBackend,
  openTestCoordination,
  REDIS_TEST_URL,
  type CoordinationBackendName,
  type TestCoordination,
} from "./support/coordination-backends.ts";

shareOneDatabasePerBackend();

const T = "tenant-a";
const U = "tenant-b";

const isValidation = (e: unknown) => e instanceof TaskflowError && e.code === "Validation";

/** Resolves a handle, failing the test when the lock was not granted. */
async function take(locks: Locks, name: string, options = {}, tenant = T): Promise<LockHandle> {
  const h = await locks.acquire(tenant, name, options);
  assert.ok(h !== null, `expected to acquire '${name.slice(0, 40)}'`);
  return h;
}

function registerLockCases(backend: CoordinationBackendName) {
  const oneProcess = backend === "memory" ? "memory coordination is one process" : undefined;
  let t: TestCoordination;
  const extra: { close(): Promise<void> }[] = [];

  beforeEach(async () => {
    t = await openTestCoordination(backend);
  });
  afterEach(async () => {
    for (const c of extra.splice(0)) await c.close();
    await t.close();
  });

  /** A second node on the same backend and prefix. */
  async function another(): Promise<Coordination> {
    const other = await t.openAnother();
    extra.push(other);
    return other.coordination;
  }

  /** Every node a case can use: this one, and another where the backend has one. */
  async function nodes(): Promise<Locks[]> {
    return backend === "memory"
      ? [t.coordination.locks]
      : [t.coordination.locks, (await another()).locks];
  }

  it("lets one holder in at a time among 20 concurrent acquirers", async () => {
    const all = await nodes();
    let holding = 0;
    let most = 0;
    let runs = 0;
    const tokens: bigint[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const locks = all[i % all.length]!;
        const h = await take(locks, "job", { waitMs: 30_000 });
        holding++;
        most = Math.max(most, holding);
        tokens.push(h.token);
        await sleep(5);
        holding--;
        runs++;
        await h.release();
      }),
    );
    assert.equal(runs, 20);
    assert.equal(most, 1, "never two holders at once");
    // Granted one after another: each grant's token is larger than the last.
    assert.deepEqual(
      tokens,
      [...tokens].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    assert.equal(new Set(tokens).size, 20);
  });

  it("refuses a held lock in the same process, waiting up to waitMs", async () => {
    const locks = t.coordination.locks;
    const h = await take(locks, "job");
    assert.equal(await locks.acquire(T, "job"), null, "waitMs 0 tries once");
    const started = Date.now();
    assert.equal(await locks.acquire(T, "job", { waitMs: 300 }), null);
    const waited = Date.now() - started;
    assert.ok(waited >= 280 && waited < 2000, `waited ${waited} ms for 300`);
    await h.release();
  });

  it("refuses a lock another node holds, waiting up to waitMs", { skip: oneProcess }, async () => {
    const [a, b] = await nodes();
    const h = await take(a!, "job");
    assert.equal(await b!.acquire(T, "job"), null);
    const started = Date.now();
    assert.equal(await b!.acquire(T, "job", { waitMs: 400 }), null);
    const waited = Date.now() - started;
    assert.ok(waited >= 380 && waited < 2500, `waited ${waited} ms for 400`);
    assert.equal(h.signal.aborted, false);
    await h.release();
  });

  it("hands a released lock to the next acquirer, and to a waiter", async () => {
    const all = await nodes();
    const [a, b] = [all[0]!, all.at(-1)!];
    const first = await take(a, "job");
    await first.release();
    await first.release(); // a no-op the second time
    const second = await take(b, "job");
    const waiting = a.acquire(T, "job", { waitMs: 5000 });
    const started = Date.now();
    await sleep(200);
    await second.release();
    const third = await waiting;
    assert.ok(third !== null, "the waiter got it");
    const waited = Date.now() - started;
    assert.ok(waited >= 190 && waited < 2000, `the waiter waited ${waited} ms`);
    await third.release();
  });

  it("grows the fencing token with every grant, across nodes", async () => {
    const all = await nodes();
    const tokens: bigint[] = [];
    for (let i = 0; i < 6; i++) {
      const h = await take(all[i % all.length]!, "job");
      assert.equal(typeof h.token, "bigint");
      tokens.push(h.token);
      await h.release();
    }
    for (let i = 1; i < tokens.length; i++) {
      assert.ok(tokens[i]! > tokens[i - 1]!, `token ${tokens[i]} after ${tokens[i - 1]}`);
    }
  });

  it("isCurrent: true for the newest token only", async () => {
    const all = await nodes();
    const locks = t.coordination.locks;
    assert.equal(await locks.isCurrent(T, "job", 1n), false, "nothing granted yet");
    const old = await take(all[0]!, "job");
    assert.equal(await locks.isCurrent(T, "job", old.token), true);
    await old.release();
    const next = await take(all.at(-1)!, "job");
    assert.equal(await locks.isCurrent(T, "job", old.token), false);
    assert.equal(await locks.isCurrent(T, "job", next.token), true);
    for (const l of all) assert.equal(await l.isCurrent(T, "job", next.token), true);
    assert.equal(await locks.isCurrent(T, "other", next.token), false);
    assert.equal(await locks.isCurrent(U, "job", next.token), false);
    await next.release();
  });

  it("extend keeps the lock past its original lease", async () => {
    const all = await nodes();
    const other = all.at(-1)!;
    // Extended every 300 ms, a lease of 1 s leaves 700 ms for an extend to be late on a
    // loaded machine (600 ms, with 300 to spare, failed once in CI beside other files).
    const h = await take(all[0]!, "job", { leaseMs: 1_000 });
    for (let i = 0; i < 5; i++) {
      await sleep(300);
      assert.equal(await h.extend(), true);
    }
    // 1.5 s in: past the original lease.
    assert.equal(h.signal.aborted, false);
    assert.equal(await other.acquire(T, "job"), null);
    assert.equal(await h.extend(1500), true);
    await sleep(800);
    assert.equal(await other.acquire(T, "job"), null, "the longer lease holds");
    await h.release();
    assert.equal(await h.extend(), false, "nothing to extend after release");
  });

  it("a lease that runs out aborts the signal and frees the lock", async () => {
    const all = await nodes();
    // The lease counts from the request: at most 300 ms after this.
    const requested = Date.now();
    const h = await take(all[0]!, "job", { leaseMs: 300 });
    const granted = Date.now();
    // The lease timer is unref'd (it keeps no process alive): this test's own timer waits.
    const at = await Promise.race([
      new Promise<number>((resolve) =>
        h.signal.addEventListener("abort", () => resolve(Date.now())),
      ),
      sleep(2000).then(() => Number.POSITIVE_INFINITY),
    ]);
    assert.ok(
      at - requested < 1500 && at - granted >= 0 && at - requested >= 290,
      `aborted ${at - requested} ms after the request, ${at - granted} ms after the grant`,
    );
    const next = await all.at(-1)!.acquire(T, "job", { waitMs: 2000 });
    assert.ok(next !== null, "another holder takes the expired lock");
    assert.ok(next.token > h.token);
    assert.equal(await h.extend(), false, "the lost lock cannot be extended");
    assert.equal(await t.coordination.locks.isCurrent(T, "job", h.token), false);
    await h.release(); // a no-op
    assert.equal(next.signal.aborted, false, "the old holder's release took nothing away");
    assert.equal(await all[0]!.acquire(T, "job"), null);
    await next.release();
  });

  it("takes names of the longest length, of any characters; names differ beyond char 64", async () => {
    const all = await nodes();
    const [a, b] = [all[0]!, all.at(-1)!];
    const base = "x".repeat(64);
    const long1 = base + "a".repeat(448); // 512 characters: the maximum
    const long2 = base + "b".repeat(448);
    assert.equal(long1.length, 512);
    const h1 = await take(a, long1);
    const h2 = await take(b, long2);
    assert.equal(await b.acquire(T, long1), null, "the same long name is the same lock");
    const almost = long1.slice(0, 511) + "z";
    const h3 = await take(b, almost);
    const odd = "ключ/🔒:\u0000 ' \" \\ % _ ;--";
    const h4 = await take(a, odd);
    assert.equal(await b.acquire(T, odd), null);
    assert.equal(await a.isCurrent(T, odd, h4.token), true);
    for (const h of [h1, h2, h3, h4]) await h.release();
  });

  it("keeps tenants apart", async () => {
    const locks = t.coordination.locks;
    const a = await take(locks, "job", {}, T);
    const b = await take(locks, "job", {}, U);
    assert.equal(await locks.isCurrent(U, "job", b.token), true);
    await a.release();
    await b.release();
  });

  it("keeps key prefixes apart", { skip: oneProcess }, async () => {
    const other = await openWithPrefix(backend, t, `${t.keyPrefix}other:`);
    extra.push(other);
    const a = await take(t.coordination.locks, "job");
    const b = await take(other.coordination.locks, "job");
    assert.equal(await other.coordination.locks.isCurrent(T, "job", b.token), true);
    await a.release();
    await b.release();
  });

  it("refuses bad input with a Validation error", async () => {
    const locks = t.coordination.locks;
    const bad: [string, () => Promise<unknown>][] = [
      ["empty name", () => locks.acquire(T, "")],
      ["513-character name", () => locks.acquire(T, "n".repeat(513))],
      ["1,000-character name", () => locks.acquire(T, "n".repeat(1000))],
      ["non-string name", () => locks.acquire(T, 42 as unknown as string)],
      ["empty tenant", () => locks.acquire("", "job")],
      ["tenant with a space", () => locks.acquire("a b", "job")],
      ["65-character tenant", () => locks.acquire("t".repeat(65), "job")],
      ["zero lease", () => locks.acquire(T, "job", { leaseMs: 0 })],
      ["negative lease", () => locks.acquire(T, "job", { leaseMs: -1 })],
      ["fractional lease", () => locks.acquire(T, "job", { leaseMs: 1.5 })],
      ["NaN lease", () => locks.acquire(T, "job", { leaseMs: Number.NaN })],
      ["negative wait", () => locks.acquire(T, "job", { waitMs: -1 })],
      ["fractional wait", () => locks.acquire(T, "job", { waitMs: 0.5 })],
      ["isCurrent: long name", () => locks.isCurrent(T, "n".repeat(513), 1n)],
      ["isCurrent: bad tenant", () => locks.isCurrent("a/b", "job", 1n)],
      ["isCurrent: number token", () => locks.isCurrent(T, "job", 1 as unknown as bigint)],
    ];
    for (const [what, call] of bad) {
      await assert.rejects(call, isValidation, what);
    }
    const h = await take(locks, "job");
    await assert.rejects(() => h.extend(0), isValidation, "extend(0)");
    await assert.rejects(() => h.extend(-5), isValidation, "extend(-5)");
    assert.equal(h.signal.aborted, false);
    await h.release();
  });

  it("closing a node gives its locks to another", { skip: oneProcess }, async () => {
    const other = await t.openAnother();
    const h = await take(other.coordination.locks, "job", { leaseMs: 60_000 });
    await other.close();
    assert.equal(h.signal.aborted, true, "a closed node's handles know they lost their locks");
    const next = await t.coordination.locks.acquire(T, "job", { waitMs: 2000 });
    assert.ok(next !== null, "the closed node's lock is free");
    await next.release();
  });

  const session = backend === "postgres" || backend === "mysql";
  it(
    "a dropped connection aborts its locks and frees them",
    { skip: session ? undefined : `${backend} locks are not held by a connection` },
    async () => {
      const other = await another();
      const h = await take(t.coordination.locks, "job");
      await dropConnections(backend, t.databaseUrl!);
      const next = await other.locks.acquire(T, "job", { waitMs: 3000 });
      assert.ok(next !== null, "the dropped session's lock is free");
      // The holder learns it at the latest when it extends.
      const extended = await h.extend().catch(() => false);
      assert.equal(extended, false);
      assert.equal(h.signal.aborted, true);
      await next.release();
      // The node dials again: its next acquire works.
      const again = await take(t.coordination.locks, "job", { waitMs: 2000 });
      await again.release();
    },
  );

  it(
    "a lock that vanished under its holder: extend resolves false and aborts",
    {
      skip:
        backend === "redis"
          ? undefined
          : "only a Redis lock can vanish under a live holder (eviction, FLUSHDB)",
    },
    async () => {
      const h = await take(t.coordination.locks, "job", { leaseMs: 10_000 });
      const r = new Redis(REDIS_TEST_URL);
      try {
        assert.equal(await r.del(`${t.keyPrefix}lock:${T}:job`), 1, "the lock's key as documented");
      } finally {
        r.disconnect();
      }
      assert.equal(await h.extend(), false);
      assert.equal(h.signal.aborted, true);
      const next = await take(t.coordination.locks, "job");
      assert.ok(next.token > h.token);
      await h.release(); // must not take the new holder's lock
      assert.equal(await (await another()).locks.acquire(T, "job"), null);
      await next.release();
    },
  );

  it(
    "rejects with UnavailableError when the backend is down",
    {
      skip:
        backend === "memory" || backend === "sqlite"
          ? `${backend} has no server to be down`
          : undefined,
    },
    async () => {
      const down = openDown(backend);
      try {
        await assert.rejects(
          () => down.coordination.locks.acquire(T, "job"),
          (e) => e instanceof UnavailableError,
        );
      } finally {
        await down.close();
      }
    },
  );
}

/** Another coordination on the same backend (and database) with another key prefix. */
async function openWithPrefix(
  backend: CoordinationBackendName,
  t: TestCoordination,
  keyPrefix: string,
): Promise<{ coordination: Coordination; close(): Promise<void> }> {
  if (backend === "redis") {
    const coordination = openCoordination({ kind: "redis", keyPrefix, redisUrl: REDIS_TEST_URL });
    return { coordination, close: () => coordination.close() };
  }
  const db = openDatabase(t.databaseUrl!);
  await db.migrate();
  const coordination = openCoordination({ kind: "sql", keyPrefix, sql: db.coordinationContext });
  return {
    coordination,
    async close() {
      await coordination.close();
      await db.close();
    },
  };
}

/** A coordination whose server is not there (port 1). */
function openDown(backend: CoordinationBackendName): {
  coordination: Coordination;
  close(): Promise<void>;
} {
  if (backend === "redis") {
    const coordination = openCoordination({
      kind: "redis",
      keyPrefix: "down:",
      redisUrl: "redis://127.0.0.1:1",
    });
    return { coordination, close: () => coordination.close() };
  }
  const url = backend === "postgres" ? "postgres://u@127.0.0.1:1/db" : "mysql://u@127.0.0.1:1/db";
  const db = openDatabase(url);
  const coordination = openCoordination({
    kind: "sql",
    keyPrefix: "down:",
    sql: db.coordinationContext,
  });
  return {
    coordination,
    async close() {
      await coordination.close();
      await db.close();
    },
  };
}

/** Ends every connection to the test database but the one doing it: a server restart, as a node sees it. */
async function dropConnections(backend: CoordinationBackendName, url: string): Promise<void> {
  if (backend === "postgres") {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid()`,
      );
    } finally {
      await c.end();
    }
    return;
  }
  const c = await createConnection({ uri: url });
  try {
    const [rows] = await c.query(
      "select id from information_schema.processlist where db = database() and id <> connection_id()",
    );
    for (const { id } of rows as { id: number }[]) {
      await c.query(`kill connection ${Number(id)}`).catch(() => undefined);
    }
  } finally {
    await c.end();
  }
}

for (const backend of coordinationBackends) {
  void describe(`Locks contract: ${backend}`, await coordinationTestOptions(backend), () =>
    registerLockCases(backend),
  );
}
