/**
 * Two real server processes (`taskflow serve`) on one MariaDB database: the
 * rate-limit budget is one across both, an idempotent POST answered by node A
 * is replayed by node B, and concurrent requests with one key across both
 * nodes run once. Run twice with only the configuration changed: coordination
 * in MariaDB itself (WF_COORDINATION=sql, no Redis), then in Redis
 * (WF_COORDINATION=redis, REDIS_URL, a fresh WF_KEY_PREFIX). Last, node A is
 * killed (-9) while it holds a key: node B answers 409 InProgress until the
 * marker's TTL is over, then runs the request, once. The TTL is the real
 * setting WF_IDEMPOTENCY_MARKER_TTL, 10 s here instead of the default minute,
 * so the case proves the same in seconds.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { createConnection } from "mysql2/promise";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";
import { startServer, type ServerProcess } from "../support/server-process.ts";

const KEY = "two-nodes-key-0123456789abcdefghij";
/** Per API key and tenant; each case below uses its own tenant, so only the budget case spends it. */
const BUDGET = 30;
/**
 * How long an idempotency marker blocks its key. Long enough to outlive the
 * steps between node A's claim and node B's first 409 (A waits on a locked
 * table meanwhile), short enough that waiting it out costs seconds.
 */
const MARKER_TTL_MS = 10_000;

interface Answer {
  status: number;
  body: string;
  replayed: boolean;
}

async function call(
  node: ServerProcess,
  method: "GET" | "POST",
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const r = await fetch(`http://127.0.0.1:${node.port}${path}`, {
    method,
    headers: {
      "x-api-key": KEY,
      "x-actor-id": "alice",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    // A request that waits (e.g. on a table the test locked) fails the test in seconds, not minutes.
    signal: AbortSignal.timeout(15_000),
  });
  return { status: r.status, body: await r.text(), replayed: r.headers.has("idempotent-replayed") };
}

/** Resolves once some session of this database waits for a table lock (up to 10 s). */
async function waitForTableLockWaiter(url: string): Promise<void> {
  const watcher = await createConnection({ uri: url });
  try {
    for (let i = 0; i < 200; i++) {
      const [rows] = await watcher.query(
        "select count(*) as n from information_schema.processlist where db = database() and state like 'Waiting for table%'",
      );
      if (Number((rows as { n: number }[])[0]?.n ?? 0) > 0) return;
      await sleep(50);
    }
    throw new Error("node A's request never waited on the locked table");
  } finally {
    await watcher.end();
  }
}

const startProcess = (node: ServerProcess, tenant: string, key: string) =>
  call(
    node,
    "POST",
    "/v1/processes",
    { "x-tenant-id": tenant, "idempotency-key": key },
    {
      processKey: "leave",
    },
  );

async function processCount(node: ServerProcess, tenant: string): Promise<number> {
  const r = await call(node, "GET", "/v1/processes?limit=500", { "x-tenant-id": tenant });
  assert.equal(r.status, 200, r.body);
  return (JSON.parse(r.body) as { items: unknown[] }).items.length;
}

const variants = [
  { name: "sql (MariaDB, no Redis)", env: () => ({ WF_COORDINATION: "sql" }), redis: false },
  {
    name: "redis",
    env: () => ({
      WF_COORDINATION: "redis",
      REDIS_URL: REDIS_TEST_URL,
      WF_KEY_PREFIX: `tftest:${randomBytes(6).toString("hex")}:`,
    }),
    redis: true,
  },
];

for (const variant of variants) {
  const mariadb = await backendTestOptions({ name: "mysql" });
  const options = mariadb.skip || !variant.redis ? mariadb : await coordinationTestOptions("redis");

  void describe(`two server processes on MariaDB, coordination ${variant.name}`, options, () => {
    let db: { url: string; drop(): Promise<void> };
    let a: ServerProcess;
    let b: ServerProcess;
    let extra: Record<string, string>;
    let env: Record<string, string>;

    before(async () => {
      db = await createTestDatabase({ name: "mysql" });
      extra = variant.env();
      env = {
        DATABASE_URL: db.url,
        WF_API_KEYS: KEY,
        NODE_ENV: "production",
        LOG_LEVEL: "warn",
        WF_RATE_LIMIT: `${BUDGET}/1h`,
        // Load shedding is not under test; a loaded CI machine must not shed these requests.
        WF_MAX_EVENT_LOOP_DELAY: "0",
        WF_IDEMPOTENCY_MARKER_TTL: String(MARKER_TTL_MS),
        ...extra,
      };
      // One after the other: the first applies the migrations.
      a = await startServer(env);
      b = await startServer(env);
    });

    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      if (extra?.WF_KEY_PREFIX) await deleteRedisPrefix(extra.WF_KEY_PREFIX);
      await db?.drop();
    });

    void it(`a budget of ${BUDGET}/1h is one across both nodes: exactly ${BUDGET} of 90 pass`, async () => {
      // The window is an hour starting on the hour: keep the burst inside one.
      const left = 3_600_000 - (Date.now() % 3_600_000);
      if (left < 30_000) await new Promise((r) => setTimeout(r, left + 100));
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          call(i % 2 === 0 ? a : b, "GET", "/v1/processes", { "x-tenant-id": "budget" }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, BUDGET, statuses.join(","));
      assert.equal(statuses.filter((s) => s === 429).length, 90 - BUDGET, statuses.join(","));
    });

    void it("a POST answered by node A is replayed by node B", async () => {
      const first = await startProcess(a, "replay", "order-1");
      assert.equal(first.status, 201, first.body);
      assert.equal(first.replayed, false);
      const again = await startProcess(b, "replay", "order-1");
      assert.equal(again.status, 201, again.body);
      assert.equal(again.replayed, true);
      assert.equal(again.body, first.body);
      assert.equal(await processCount(b, "replay"), 1);
    });

    void it("20 concurrent requests with one key across both nodes: one runs", async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => startProcess(i % 2 === 0 ? a : b, "burst", "k")),
      );
      const ran = answers.filter((r) => r.status === 201 && !r.replayed);
      assert.equal(ran.length, 1, answers.map((r) => r.status).join(","));
      for (const r of answers) {
        if (r.status === 409) assert.equal(JSON.parse(r.body).code, "InProgress");
        else assert.equal(r.body, ran[0]!.body);
      }
      assert.equal(await processCount(a, "burst"), 1);
    });

    void it("node A killed -9 while it holds a key: B answers InProgress until the marker expires, then runs it once", async () => {
      // Hold the instances table so A's insert waits inside its transaction.
      const locker = await createConnection({ uri: db.url });
      try {
        await locker.query("LOCK TABLES instances WRITE");
        const pending = startProcess(a, "crash", "k").catch(() => undefined);
        const claimedAt = Date.now();
        // B asks only once A's insert waits on the locked table, so A has claimed the key:
        // asked earlier, B could claim it first and wait on the lock itself (the test hung so).
        await waitForTableLockWaiter(db.url);
        let seen = await startProcess(b, "crash", "k");
        for (let i = 0; i < 50 && seen.status !== 409; i++) {
          await sleep(100);
          seen = await startProcess(b, "crash", "k");
        }
        assert.equal(seen.status, 409, `A holds the key: ${seen.body}`);
        a.proc.kill("SIGKILL");
        await pending;
        await locker.query("UNLOCK TABLES");
        // Every second: about ten polls, well inside the tenant's rate-limit budget.
        let answer = await startProcess(b, "crash", "k");
        while (answer.status === 409 && Date.now() - claimedAt < MARKER_TTL_MS + 30_000) {
          assert.equal(JSON.parse(answer.body).code, "InProgress");
          await sleep(1000);
          answer = await startProcess(b, "crash", "k");
        }
        assert.equal(answer.status, 201, answer.body);
        assert.equal(answer.replayed, false, "B ran it: A died before storing an answer");
        const waited = Date.now() - claimedAt;
        // A was killed about a second after its claim: a key freed by the kill would run far sooner.
        assert.ok(
          waited >= MARKER_TTL_MS * 0.9,
          `the key stayed blocked for the marker's ${MARKER_TTL_MS} ms (${waited} ms)`,
        );
        assert.equal(await processCount(b, "crash"), 1, "A's transaction died with it");
      } finally {
        await locker.end();
        // A fresh node A, so after() stops a live process.
        if (a.proc.exitCode === null && a.proc.signalCode === null) a.proc.kill("SIGKILL");
        a = await startServer(env);
      }
    });
  });
}
