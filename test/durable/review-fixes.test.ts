/**
 * Regression tests for reviewed defects: reserved signal names, non-determinism
 * that blocks instead of failing, idempotent task creation under a lease
 * takeover, and races of waits against timers.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import { MemoryRunStore } from "./support/memory-run-store.ts";
import { Clock, Harness } from "./support/harness.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { createDirectory } from "../../src/adapters/directory/create-directory.ts";
import { HumanTaskEngine } from "../../src/engine/human-task-engine.ts";
import type { HumanTaskApi } from "../../src/engine/human-task-api.ts";
import {
  humanTaskBridge,
  wakeRunsOnCompletion,
} from "../../src/engine/durable/human-task-bridge.ts";
import { executeRun } from "../../src/engine/durable/executor.ts";
import type { Run } from "../../src/domain/run.ts";
import type { RunStore } from "../../src/engine/durable/run-store-port.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";

const T = "t1";

test("runs API: signal names starting with '__' are reserved (400 Validation)", async () => {
  const wf = workflow("wait", async (ctx) => ctx.waitForSignal("go"));
  const store = new MemoryRunStore();
  const api = new DurableRuns(store, new WorkflowRegistry([wf]));
  await api.start(T, "wait", { id: "r1", startedBy: "u" });
  await assert.rejects(api.signal(T, "r1", "__task:x", null), { code: "Validation" });
  await assert.rejects(api.signal(T, "r1", "__child:r1:0", null), { code: "Validation" });
  await api.signal(T, "r1", "_single_underscore_ok", null);
});

test("non-determinism blocks the run (error visible, no compensation, backoff) until fixed code resumes it", async () => {
  const compensated: string[] = [];
  const codeA = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("charge", () => 1);
    await ctx.sleep("1h");
    return "A";
  });
  const codeB = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("reserve", () => 1);
    await ctx.sleep("1h");
    return "B";
  });
  const codeA2 = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("charge", () => 1);
    await ctx.sleep("1h");
    return "A'";
  });
  const store = new MemoryRunStore();
  const hA = new Harness(store, [codeA]);
  await hA.start("order", null, "r1");
  assert.deepEqual(await hA.drain(), ["waiting"]);

  const hB = new Harness(store, [codeB], hA.clock);
  hB.clock.advance(3_600_000);
  assert.deepEqual(await hB.drain(), ["waiting"]);
  let r = (await store.getRun(T, "r1"))!;
  assert.equal(r.status, "waiting");
  assert.equal(r.error?.name, "NonDeterminismError");
  assert.match(r.error.message, /history has step 'charge' but the code now calls step 'reserve'/);
  assert.ok(r.wakeAt! >= hB.clock.now() + 60_000, "backs off instead of a hot loop");
  assert.deepEqual(compensated, []);
  let hist = await store.loadHistory(T, "r1", 0);
  assert.equal(hist.filter((e) => e.type === "nondeterminism").length, 1);
  // Not due again before the backoff; a second try under B records no second event.
  assert.deepEqual(await hB.drain(), []);
  hB.clock.advance(60_000);
  assert.deepEqual(await hB.drain(), ["waiting"]);
  hist = await store.loadHistory(T, "r1", 0);
  assert.equal(hist.filter((e) => e.type === "nondeterminism").length, 1);

  const hA2 = new Harness(store, [codeA2], hA.clock);
  hA2.clock.advance(60_000);
  assert.deepEqual(await hA2.drain(), ["completed"]);
  r = (await store.getRun(T, "r1"))!;
  assert.equal(r.output, "A'");
  assert.equal(r.error, null);
  assert.deepEqual(compensated, []);
});

/** A fresh database of `b` with the inbox, the run store and the bridge (engine wrappable). */
async function inboxOn(b: Backend, wrap: (e: HumanTaskApi) => HumanTaskApi = (e) => e) {
  const db = await createTestDatabase(b);
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: ["k"], logLevel: "silent" },
  });
  const database = openDatabase(config.databaseUrl);
  await database.migrate();
  const store = database.tasks;
  const engine = new HumanTaskEngine({ store, directory: createDirectory(config) });
  const runs = database.runs;
  const bridge = humanTaskBridge(store, wrap(engine));
  return {
    store,
    engine,
    runs,
    bridge,
    close: async () => {
      await database.close();
      await db.drop();
    },
  };
}

for (const b of backends) {
  test(
    `a lease takeover while creating a human task does not duplicate the inbox task (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const wf = workflow("approve", async (ctx) => {
        const r = await ctx.humanTask("ok", { assignee: { kind: "user", id: "bob" } });
        return r.completedBy;
      });
      // Both executions reach AssignTo before either has created anything.
      let arrived = 0;
      let open!: () => void;
      const both = new Promise<void>((r) => (open = r));
      const env = await inboxOn(
        b,
        (e) =>
          new Proxy(e, {
            get(target, prop, receiver) {
              const v = Reflect.get(target, prop, receiver) as unknown;
              if (prop !== "assign" || typeof v !== "function") return v;
              return async (...args: unknown[]) => {
                if (++arrived === 2) open();
                await both;
                return (v as (...a: unknown[]) => unknown).apply(target, args);
              };
            },
          }),
      );
      try {
        const clock = new Clock(Date.now());
        await env.runs.createRun({
          tenantId: T,
          id: "r1",
          workflow: "approve",
          input: null,
          parentRunId: null,
          startedBy: "alice",
          now: clock.now(),
        });
        const registry = new WorkflowRegistry([wf]);
        const exec = (run: Run, owner: string) =>
          executeRun(run, {
            store: env.runs,
            registry,
            owner,
            contextOptions: { now: clock.now, inMemoryWaitMs: 0, humanTasks: env.bridge },
          });
        const [first] = await env.runs.claimRuns("w1", clock.now(), clock.now() + 5_000, 1);
        clock.advance(6_000); // w1's lease expires: w2 takes the run over while w1 still works
        const [second] = await env.runs.claimRuns("w2", clock.now(), clock.now() + 5_000, 1);
        const outcomes = await Promise.all([exec(first!, "w1"), exec(second!, "w2")]);
        assert.deepEqual(outcomes.sort(), ["lost", "waiting"]);
        const bobs = await env.engine.userInbox({ tenantId: T }, "bob", {});
        assert.equal(bobs.items.length, 1, "one inbox task");
        const hist = await env.runs.loadHistory(T, "r1", 0);
        const wait = hist.find((e) => e.type === "task_wait")!;
        assert.equal((wait.data as { instanceId: string }).instanceId, bobs.items[0]!.instanceId);
      } finally {
        await env.close();
      }
    },
  );
}

// ---- races of waits against timers ----------------------------------------------------

const signalRace = workflow("signal-race", async (ctx) => {
  const winner = await Promise.race([
    ctx.sleep("4s").then(() => "timeout"),
    ctx.waitForSignal<string>("approve").then((v) => `signal ${v}`),
  ]);
  await ctx.sleep("1h"); // replayed again later: the race must replay the same way
  return winner;
});

async function signalRaceOn(store: RunStore, clock = new Clock()) {
  const h = new Harness(store, [signalRace], clock);
  await h.start("signal-race", null, "early");
  await h.start("signal-race", null, "late");
  assert.deepEqual(await h.drain(), ["waiting", "waiting"]);
  assert.equal((await store.getRun(T, "early"))!.wakeAt, h.clock.now() + 4_000);
  h.clock.advance(1_000);
  await store.sendSignal(T, "early", { id: "s1", name: "approve", payload: "yes" }, h.clock.now());
  assert.deepEqual(await h.drain(), ["waiting"]);
  h.clock.advance(3_000); // both timers fire: "late" times out, "early" replays its race
  assert.deepEqual(await h.drain(), ["waiting", "waiting"]);
  await store.sendSignal(
    T,
    "late",
    { id: "s2", name: "approve", payload: "too late" },
    h.clock.now(),
  );
  await h.drain();
  h.clock.advance(3_600_000);
  assert.deepEqual((await h.drain()).sort(), ["completed", "completed"]);
  assert.equal((await store.getRun(T, "early"))!.output, "signal yes");
  assert.equal((await store.getRun(T, "late"))!.output, "timeout");
}

test("race of a signal wait against a timer: the signal that came first wins, on every replay (memory)", async () => {
  await signalRaceOn(new MemoryRunStore());
});

for (const b of backends) {
  test(
    `race of a signal wait against a timer: the signal that came first wins, on every replay (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const env = await inboxOn(b);
      try {
        await signalRaceOn(env.runs, new Clock(Date.now()));
      } finally {
        await env.close();
      }
    },
  );
}

const taskRace = workflow("task-race", async (ctx) => {
  const winner = await Promise.race([
    ctx.sleep("4s").then(() => "timeout"),
    ctx
      .humanTask("approve", { assignee: { kind: "user", id: "bob" } })
      .then((r) => `${r.action} by ${r.completedBy}`),
  ]);
  await ctx.sleep("1h");
  return winner;
});

/** A taskRace run r1 started on `b`, and bob's approval of its task through the inbox. */
async function taskRaceOn(b: Backend) {
  const env = await inboxOn(b);
  const h = new Harness(env.runs, [taskRace], new Clock(Date.now()));
  h.contextOptions = { humanTasks: env.bridge };
  const inbox = wakeRunsOnCompletion(env.engine, env.store, env.runs);
  await h.start("task-race", null, "r1").catch(async (e: unknown) => {
    await env.close();
    throw e;
  });
  const approve = async () => {
    const [task] = (await inbox.userInbox({ tenantId: T }, "bob", {})).items;
    await inbox.complete({ tenantId: T, actorId: "bob" }, task!.id, {
      vars: { action: "approve" },
    });
  };
  return { env, h, approve };
}

for (const b of backends) {
  test(
    `race of a human task against a timer: the approval before the timer wins, on every replay (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const { env, h, approve } = await taskRaceOn(b);
      try {
        assert.deepEqual(await h.drain(), ["waiting"]);
        const r = (await env.runs.getRun(T, "r1"))!;
        assert.equal(r.wakeAt, h.clock.now() + 4_000, "wakes for the timer, not only the re-check");
        h.clock.advance(1_000);
        await approve();
        assert.deepEqual(await h.drain(), ["waiting"]);
        h.clock.advance(3_000); // the losing timer fires: a replay that must not change the winner
        assert.deepEqual(await h.drain(), ["waiting"]);
        h.clock.advance(3_600_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.output, "approve by bob");
      } finally {
        await env.close();
      }
    },
  );
}

for (const b of backends) {
  test(
    `race of a human task against a timer: the timer first wins, a later approval changes nothing (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const { env, h, approve } = await taskRaceOn(b);
      try {
        await h.drain();
        h.clock.advance(4_000);
        assert.deepEqual(await h.drain(), ["waiting"]);
        await approve();
        await h.drain();
        h.clock.advance(3_600_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.output, "timeout");
      } finally {
        await env.close();
      }
    },
  );
}

for (const b of backends) {
  test(
    `ctx.humanTask timeout: resolves with timedOut and cancels the open tasks (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const wf = workflow("timed", async (ctx) => {
        const r = await ctx.humanTask("approve", {
          assignee: { kind: "user", id: "bob" },
          timeout: "10s",
        });
        return { timedOut: r.timedOut, cancelled: r.cancelled, by: r.completedBy };
      });
      const env = await inboxOn(b);
      try {
        const h = new Harness(env.runs, [wf], new Clock(Date.now()));
        h.contextOptions = { humanTasks: env.bridge };
        await h.start("timed", null, "r1");
        assert.deepEqual(await h.drain(), ["waiting"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.wakeAt, h.clock.now() + 10_000);
        assert.equal((await env.engine.userInbox({ tenantId: T }, "bob", {})).items.length, 1);
        h.clock.advance(10_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.deepEqual((await env.runs.getRun(T, "r1"))!.output, {
          timedOut: true,
          cancelled: true,
          by: null,
        });
        assert.equal((await env.engine.userInbox({ tenantId: T }, "bob", {})).items.length, 0);
      } finally {
        await env.close();
      }
    },
  );
}
