/**
 * The durable runtime end to end on every backend: HTTP routes with the
 * in-process worker (createTaskflow), a durable timer firing after the only
 * worker was down, an early signal, and a takeover after a worker stops
 * heartbeating (a dead worker).
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions check their shape. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { pgWakeups } from "../../src/adapters/store/run-store/pg-wakeups.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import { Worker } from "../../src/engine/durable/worker.ts";
import { workflow } from "../../src/workflow.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";

const KEY = "k-0123456789abcdefghijkl";
const T = "default";

/** A fresh, migrated database of backend `b` with its run store; `close` drops it. */
async function freshStore(b: Backend) {
  const db = await createTestDatabase(b);
  const store = openDatabase(db.url);
  await store.migrate();
  return {
    url: db.url,
    store,
    runStore: store.runs,
    close: async () => {
      await store.close();
      await db.drop();
    },
  };
}

async function waitFor<T>(get: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const greet = workflow("greet", async (ctx, input: { name: string }) => {
  await ctx.sleep(300);
  const greeting = await ctx.waitForSignal<{ text: string }>("greeting", { timeout: "1h" });
  return `${greeting?.text} ${input.name}`;
});

const approval = workflow("approval", async (ctx, input: { amount: number }) => {
  const decision = await ctx.humanTask("approve", {
    assignee: { kind: "users", ids: ["bob", "carol", "dave"] },
    policy: { atLeast: 2 },
    vars: { amount: input.amount },
  });
  const shipped = await ctx.child(shipping, { amount: input.amount });
  let failed = "";
  try {
    await ctx.child(broken);
  } catch (e) {
    failed = (e as Error).name;
  }
  return {
    by: decision.completions.map((c) => c.completedBy),
    action: decision.action,
    shipped,
    failed,
  };
});

const shipping = workflow("shipping", async (ctx, input: { amount: number }) =>
  ctx.step("ship", () => `shipped ${input.amount}`),
);

const broken = workflow("broken", async (ctx) => {
  await ctx.step(
    "fail",
    () => {
      throw new Error("nope");
    },
    { retry: { maxAttempts: 1 } },
  );
});

const nap = workflow("nap", async (ctx) => {
  const t0 = ctx.now();
  await ctx.sleep(1_500);
  return ctx.now() - t0;
});

function suite(b: Backend) {
  describe(`durable runtime on ${b.name}`, async () => {
    const options = await backendTestOptions(b);

    it(
      "runs REST: start (idempotent), early signal, get, history, list, cancel, process list",
      options,
      async () => {
        const db = await createTestDatabase(b);
        const config = loadConfig({
          env: {},
          overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent" },
        });
        const tf = await createTaskflow(config, {
          workflows: [greet],
          worker: { pollMs: 50, heartbeatMs: 300 },
        });
        const call = async (method: "GET" | "POST", url: string, body?: unknown) => {
          const r = await tf.server.inject({
            method,
            url,
            headers: { "x-api-key": KEY, "x-actor-id": "alice" },
            ...(body !== undefined ? { payload: body as object } : {}),
          });
          return { status: r.statusCode, body: r.json() };
        };
        try {
          const s1 = await call("POST", "/v1/workflows/greet/runs", {
            id: "g-1",
            input: { name: "Ann" },
          });
          assert.equal(s1.status, 201);
          assert.equal(s1.body.runId, "g-1");
          // The signal arrives while the run still sleeps: it must not be lost.
          const sig = await call("POST", "/v1/runs/g-1/signals/greeting", { text: "hello" });
          assert.equal(sig.status, 202);
          const again = await call("POST", "/v1/workflows/greet/runs", {
            id: "g-1",
            input: { name: "X" },
          });
          assert.equal(again.status, 200);
          assert.equal((await call("POST", "/v1/workflows/nope/runs", {})).body.code, "NotFound");
          const done = await waitFor(
            () => call("GET", "/v1/runs/g-1"),
            (r) => r.body.status === "completed",
          );
          assert.equal(done.body.output, "hello Ann");
          assert.deepEqual(done.body.input, { name: "Ann" });
          assert.equal(done.body.error, null);
          assert.match(done.body.createdAt, /^\d{4}-\d\d-\d\dT/);
          const hist = await call("GET", "/v1/runs/g-1/history");
          assert.deepEqual(
            hist.body.items.map((e: any) => [e.seq, e.type, e.name]),
            [
              [0, "timer", "sleep"],
              [1, "signal", "greeting"],
            ],
          );
          assert.match(hist.body.items[0].at, /Z$/);

          const s2 = await call("POST", "/v1/workflows/greet/runs", { input: { name: "Bob" } });
          assert.equal(s2.status, 201);
          const id2 = s2.body.runId as string;
          await waitFor(
            () => call("GET", `/v1/runs/${id2}`),
            (r) => r.body.status === "waiting",
          );
          const c = await call("POST", `/v1/runs/${id2}/cancel`);
          assert.equal(c.status, 202);
          const cancelled = await waitFor(
            () => call("GET", `/v1/runs/${id2}`),
            (r) => r.body.status === "cancelled",
          );
          assert.equal(cancelled.body.error.name, "CancelledFailure");

          const list = await call("GET", "/v1/runs?workflow=greet&limit=1");
          assert.equal(list.body.items.length, 1);
          assert.equal(typeof list.body.nextCursor, "string");
          const next = await call(
            "GET",
            `/v1/runs?workflow=greet&limit=1&cursor=${list.body.nextCursor}`,
          );
          assert.equal(next.body.items.length, 1);
          assert.equal(next.body.nextCursor, null);
          const completed = await call("GET", "/v1/runs?status=completed");
          assert.deepEqual(
            completed.body.items.map((r: any) => r.runId),
            ["g-1"],
          );
          assert.equal((await call("GET", "/v1/runs/nope")).status, 404);
          assert.equal((await call("POST", "/v1/runs/g-1/signals/x", {})).status, 409);
          // Each run owns a root instance in the starter's process list.
          const procs = await call("GET", "/v1/processes?state=closed");
          assert.equal(procs.body.items.length, 2);
          assert.equal(procs.body.items[0].definitionKey, "greet");
        } finally {
          await tf.close();
          await db.drop();
        }
      },
    );

    it(
      "ctx.humanTask: inbox tasks under the run's root, 2-of-3 policy over REST resumes the run; ctx.child",
      options,
      async () => {
        const db = await createTestDatabase(b);
        const config = loadConfig({
          env: {},
          overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent" },
        });
        const tf = await createTaskflow(config, {
          workflows: [approval, shipping, broken],
          worker: { pollMs: 50, heartbeatMs: 300 },
        });
        const call = async (actor: string, method: "GET" | "POST", url: string, body?: unknown) => {
          const r = await tf.server.inject({
            method,
            url,
            headers: { "x-api-key": KEY, "x-actor-id": actor },
            ...(body !== undefined ? { payload: body as object } : {}),
          });
          return { status: r.statusCode, body: r.json() };
        };
        try {
          const s = await call("alice", "POST", "/v1/workflows/approval/runs", {
            id: "a-1",
            input: { amount: 5 },
          });
          assert.equal(s.status, 201);
          const inbox = async (u: string) =>
            (await call(u, "GET", `/v1/tasks?user=${u}`)).body.items as any[];
          const [bobTask] = await waitFor(
            () => inbox("bob"),
            (i) => i.length === 1,
          );
          const run = (
            await waitFor(
              () => call("alice", "GET", "/v1/runs/a-1"),
              (r) => r.body.status === "waiting",
            )
          ).body;
          assert.equal(bobTask.rootInstanceId, run.rootInstanceId);
          const done1 = await call("bob", "POST", `/v1/tasks/${bobTask.id}/complete`, {
            vars: { action: "approve" },
          });
          assert.equal(done1.status, 200);
          // One of two needed approvals: the run wakes, re-checks and waits again.
          await waitFor(
            () => call("alice", "GET", "/v1/runs/a-1"),
            (r) => r.body.status === "waiting",
          );
          const [carolTask] = await inbox("carol");
          const t0 = Date.now();
          await call("carol", "POST", `/v1/tasks/${carolTask.id}/complete`, {
            vars: { action: "approve" },
          });
          const final = await waitFor(
            () => call("alice", "GET", "/v1/runs/a-1"),
            (r) => r.body.status === "completed",
          );
          const resumeMs = Date.now() - t0;
          assert.deepEqual(final.body.output, {
            by: ["bob", "carol"],
            action: "approve",
            shipped: "shipped 5",
            failed: "ChildFailedError",
          });
          // The policy was met: dave's task was cancelled, so it left his inbox.
          assert.deepEqual(await inbox("dave"), []);
          const child = (await call("alice", "GET", "/v1/runs?workflow=shipping")).body.items;
          assert.equal(child.length, 1);
          assert.equal(child[0].parentRunId, "a-1");
          console.log(
            `# ${b.name}: run resumed ${resumeMs} ms after the deciding task completion (incl. 2 child runs)`,
          );
        } finally {
          await tf.close();
          await db.drop();
        }
      },
    );

    if (b.name === "postgres") {
      it(
        "LISTEN/NOTIFY: a run started elsewhere wakes an idle worker at once (no polling)",
        options,
        async () => {
          const { store, url, close } = await freshStore(b);
          const registry = new WorkflowRegistry([shipping]);
          const worker = new Worker(store.runs, registry, { pollMs: 60_000 }, pgWakeups(url));
          try {
            await worker.start();
            await new Promise((r) => setTimeout(r, 200)); // the first claim pass is over
            const api = new DurableRuns(store.runs, registry); // no local worker: only NOTIFY
            const t0 = Date.now();
            await api.start(T, "shipping", { id: "s1", input: { amount: 1 }, startedBy: "u" });
            await waitFor(
              () => api.get(T, "s1"),
              (r) => r.status === "completed",
              5_000,
            );
            assert.ok(Date.now() - t0 < 1_000, `took ${Date.now() - t0} ms`);
          } finally {
            await worker.stop();
            await close();
          }
        },
      );
    }

    it(
      "two workers share 1,000 runs: each run executed by exactly one, every step once, none lost",
      options,
      async () => {
        const { runStore, close } = await freshStore(b);
        const seen = new Map<string, number>();
        const wf = workflow("shared", async (ctx, n: number) => {
          let x = n;
          for (const s of ["a", "b", "c"]) {
            x = await ctx.step(s, ({ idempotencyKey }) => {
              seen.set(idempotencyKey, (seen.get(idempotencyKey) ?? 0) + 1);
              return x + 1;
            });
          }
          return x;
        });
        const registry = new WorkflowRegistry([wf]);
        const workers = ["w1", "w2"].map(
          (id) => new Worker(runStore, registry, { owner: id, pollMs: 20, maxConcurrent: 16 }),
        );
        // Who claimed each run: a run must be claimed once only (leases never expire here).
        // A second claim is recorded, not thrown: the worker's claim loop catches what
        // claimRuns throws and polls again, so an assertion here would surface only
        // as a timeout, if at all.
        const byRun = new Map<string, string>();
        const claimedTwice: string[] = [];
        const origClaim = runStore.claimRuns.bind(runStore);
        runStore.claimRuns = async (o, ...rest) => {
          const got = await origClaim(o, ...rest);
          for (const r of got) {
            const first = byRun.get(r.id);
            if (first === undefined) byRun.set(r.id, o);
            else claimedTwice.push(`${r.id} by ${first}, then by ${o}`);
          }
          return got;
        };
        try {
          const api = new DurableRuns(runStore, registry); // no local worker: both must claim
          for (let i = 0; i < 1_000; i++) {
            await api.start(T, "shared", { id: `r${i}`, input: i, startedBy: "u" });
          }
          await Promise.all(workers.map((w) => w.start()));
          const deadline = Date.now() + 60_000;
          let done = 0;
          while (done < 1_000) {
            assert.deepEqual(claimedTwice, [], "runs claimed twice");
            assert.ok(Date.now() < deadline, `only ${done} completed`);
            await new Promise((r) => setTimeout(r, 100));
            done = 0;
            let cursor: string | undefined;
            do {
              const page = await api.list(T, { status: "completed", limit: 500, cursor });
              done += page.items.length;
              cursor = page.nextCursor ?? undefined;
            } while (cursor !== undefined);
          }
          assert.deepEqual(claimedTwice, [], "runs claimed twice");
          assert.equal(byRun.size, 1_000);
          assert.equal(seen.size, 3_000);
          assert.ok(
            [...seen.values()].every((n) => n === 1),
            "a step ran twice",
          );
          const share = [...byRun.values()].filter((o) => o === "w1").length;
          console.log(
            `# ${b.name}: 1,000 runs over 2 workers, w1 took ${share}, w2 ${1_000 - share}`,
          );
        } finally {
          await Promise.all(workers.map((w) => w.stop()));
          await close();
        }
      },
    );

    it(
      "a durable sleep fires when a worker returns after the only one was down",
      options,
      async () => {
        const { runStore, close } = await freshStore(b);
        const registry = new WorkflowRegistry([nap]);
        try {
          const w1 = new Worker(runStore, registry, { pollMs: 50 });
          await w1.start();
          const api = new DurableRuns(runStore, registry, w1);
          await api.start(T, "nap", { id: "n1", startedBy: "u" });
          await waitFor(
            () => api.get(T, "n1"),
            (r) => r.status === "waiting",
          );
          await w1.stop();
          await new Promise((r) => setTimeout(r, 2_000));
          assert.equal((await api.get(T, "n1")).status, "waiting");
          const w2 = new Worker(runStore, registry, { pollMs: 50 });
          const t0 = Date.now();
          await w2.start();
          const r = await waitFor(
            () => api.get(T, "n1"),
            (x) => x.status === "completed",
          );
          await w2.stop();
          assert.ok((r.output as number) >= 1_500);
          assert.ok(Date.now() - t0 < 1_000, "fired promptly once a worker was back");
        } finally {
          await close();
        }
      },
    );

    it(
      "a dead worker's run is taken over after its lease; its late write is fenced",
      options,
      async () => {
        const { runStore, close } = await freshStore(b);
        const counts = new Map<string, number>();
        // Step b hangs in both workers: the dead one's is released first, while the
        // live one has not recorded b yet. So the late write's seq is still free and
        // only the lease fence can refuse it (the sequence key cannot).
        let releaseDead: () => void = () => undefined;
        const deadHangs = new Promise<void>((r) => (releaseDead = r));
        let releaseLive: () => void = () => undefined;
        const liveHangs = new Promise<void>((r) => (releaseLive = r));
        const wf = workflow("takeover", async (ctx) => {
          const results: string[] = [];
          for (const s of ["a", "b", "c"]) {
            results.push(
              await ctx.step(s, async ({ idempotencyKey }) => {
                const n = (counts.get(idempotencyKey) ?? 0) + 1;
                counts.set(idempotencyKey, n);
                if (s === "b") await (n === 1 ? deadHangs : liveHangs);
                return `${s}${n}`; // which execution's result was recorded
              }),
            );
          }
          return results;
        });
        const registry = new WorkflowRegistry([wf]);
        const outcomes: string[] = [];
        // The dying worker: never heartbeats, so its 600 ms lease runs out.
        const dead = new Worker(runStore, registry, {
          owner: "dead",
          maxConcurrent: 1, // busy with the hung run: it claims nothing else
          leaseMs: 600,
          heartbeatMs: 3_600_000,
          pollMs: 50,
          onOutcome: (_r, o) => outcomes.push(`dead:${String(o)}`),
        });
        const live = new Worker(runStore, registry, {
          owner: "live",
          leaseMs: 600,
          heartbeatMs: 200,
          pollMs: 50,
          onOutcome: (_r, o) => outcomes.push(`live:${String(o)}`),
        });
        try {
          await dead.start();
          const api = new DurableRuns(runStore, registry, dead);
          await api.start(T, "takeover", { id: "t1", startedBy: "u" });
          await waitFor(
            () => Promise.resolve(counts.get("t1:1")),
            (n) => n === 1,
          );
          await live.start();
          // The live worker took the run over (the dead one's lease ran out) and is in b.
          await waitFor(
            () => Promise.resolve(counts.get("t1:1")),
            (n) => n === 2,
          );
          releaseDead();
          await waitFor(
            () => Promise.resolve(outcomes.length),
            (n) => n === 1,
          );
          assert.deepEqual(outcomes, ["dead:lost"]);
          // Its write of b (seq 1, still free) was refused: only a is recorded so far.
          assert.deepEqual(
            (await api.history(T, "t1")).map((e) => e.name),
            ["a"],
          );
          releaseLive();
          const r = await waitFor(
            () => api.get(T, "t1"),
            (x) => x.status === "completed",
          );
          assert.deepEqual(r.output, ["a1", "b2", "c1"]);
          await dead.stop(2_000);
          await live.stop();
          assert.deepEqual(outcomes.sort(), ["dead:lost", "live:completed"]);
          // Step a was recorded before the takeover: it never ran again. Step b was in
          // flight: it ran twice, and the live worker's result is the one recorded. The
          // dead worker never reached c: its write of b was refused first.
          assert.deepEqual([...counts.entries()].sort(), [
            ["t1:0", 1],
            ["t1:1", 2],
            ["t1:2", 1],
          ]);
          const hist = await api.history(T, "t1");
          assert.deepEqual(
            hist.map((e) => e.name),
            ["a", "b", "c"],
          );
        } finally {
          await dead.stop(0);
          await live.stop(0);
          await close();
        }
      },
    );
  });
}

for (const b of backends) suite(b);
