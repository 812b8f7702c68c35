import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import { Worker } from "../../src/engine/durable/worker.ts";
import { MemoryRunStore } from "./support/memory-run-store.ts";
import { Harness } from "./support/harness.ts";

const T = "t1";

test("continueAsNew keeps history bounded over 10,000 iterations", async () => {
  const wf = workflow("counter", async (ctx, n: number) => {
    await ctx.step("tick", () => n);
    if (n < 10_000) await ctx.continueAsNew(n + 1);
    return n;
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("counter", 1, "r1");
  assert.deepEqual(await h.drain(), ["completed"]);
  const r = await store.getRun(T, "r1");
  assert.equal(r!.output, 10_000);
  assert.equal(r!.generation, 9_999);
  assert.equal(store.events.get(`${T}\u0000r1`)!.size, 1);
  assert.equal((await store.loadHistory(T, "r1", r!.firstSeq)).length, 1);
});

test("saga: compensations run in reverse order, each as a step, when the workflow fails", async () => {
  const done: string[] = [];
  const wf = workflow("order", async (ctx) => {
    const saga = ctx.saga();
    await ctx.step("charge", () => done.push("charge"));
    saga.onFailure("refund", () => done.push("refund"));
    await ctx.step("reserve", () => done.push("reserve"));
    saga.onFailure(() => ctx.step("release", () => done.push("release")));
    await ctx.step(
      "ship",
      () => {
        throw new Error("no truck");
      },
      { retry: { maxAttempts: 1 } },
    );
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("order", null, "r1");
  assert.deepEqual(await h.drain(), ["failed"]);
  assert.deepEqual(done, ["charge", "reserve", "release", "refund"]);
  const r = await store.getRun(T, "r1");
  assert.match(r!.error!.message, /no truck/);
  const hist = await store.loadHistory(T, "r1", 0);
  assert.deepEqual(
    hist.map((e) => e.name),
    ["charge", "reserve", "ship", "release", "refund"],
  );
});

test("cancel: the next ctx call throws, compensations run, status cancelled", async () => {
  const done: string[] = [];
  const wf = workflow("trip", async (ctx) => {
    const saga = ctx.saga();
    await ctx.step("book", () => done.push("book"));
    saga.onFailure("unbook", () => done.push("unbook"));
    await ctx.waitForSignal("confirm");
    await ctx.step("pay", () => done.push("pay"));
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("trip", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting"]);
  await store.requestCancel(T, "r1", h.clock.now());
  assert.deepEqual(await h.drain(), ["cancelled"]);
  assert.deepEqual(done, ["book", "unbook"]);
  const r = await store.getRun(T, "r1");
  assert.equal(r!.status, "cancelled");
  assert.equal(r!.error!.name, "CancelledFailure");
});

test("a run cancelled before it starts never runs", async () => {
  let ran = false;
  const wf = workflow("never", async (ctx) => ctx.step("x", () => (ran = true)));
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("never", null, "r1");
  await store.requestCancel(T, "r1", h.clock.now());
  assert.deepEqual(await h.drain(), ["cancelled"]);
  assert.equal(ran, false);
});

test("runs API: idempotent start by id, unknown workflow, list with cursor, signal, cancel", async () => {
  const wf = workflow("greet", async (ctx, name: string) => {
    const greeting = await ctx.waitForSignal<string>("greeting");
    return `${greeting} ${name}`;
  });
  const store = new MemoryRunStore();
  const registry = new WorkflowRegistry([wf]);
  const worker = new Worker(store, registry, { pollMs: 10, heartbeatMs: 50 });
  await worker.start();
  const api = new DurableRuns(store, registry, worker);
  try {
    const a = await api.start(T, "greet", { input: "ann", id: "run-a", startedBy: "u" });
    assert.equal(a.created, true);
    const again = await api.start(T, "greet", { input: "other", id: "run-a", startedBy: "u" });
    assert.equal(again.created, false);
    assert.equal(again.run.input, "ann");
    await assert.rejects(api.start(T, "nope", { startedBy: "u" }), { code: "NotFound" });
    await assert.rejects(api.start(T, "greet", { id: "bad id!", startedBy: "u" }), {
      code: "Validation",
    });
    const b = await api.start(T, wf, { input: "bob", startedBy: "u" });
    await worker.idle();
    assert.equal((await api.get(T, "run-a")).status, "waiting");
    const page1 = await api.list(T, { workflow: "greet", limit: 1 });
    assert.equal(page1.items.length, 1);
    assert.notEqual(page1.nextCursor, null);
    const page2 = await api.list(T, { workflow: "greet", limit: 1, cursor: page1.nextCursor! });
    assert.equal(page2.items.length, 1);
    assert.equal(page2.nextCursor, null);
    await api.signal(T, "run-a", "greeting", "hello");
    await api.cancel(T, b.run.id);
    await waitFor(async () => (await api.get(T, b.run.id)).status === "cancelled");
    await waitFor(async () => (await api.get(T, "run-a")).status === "completed");
    assert.equal((await api.get(T, "run-a")).output, "hello ann");
    await assert.rejects(api.signal(T, "run-a", "greeting", 1), { code: "Conflict" });
    await assert.rejects(api.signal(T, "zzz", "greeting", 1), { code: "NotFound" });
    const hist = await api.history(T, "run-a");
    assert.deepEqual(
      hist.map((e) => e.type),
      ["signal_wait", "signal"],
    );
  } finally {
    await worker.stop();
  }
});

test("worker: a dead worker's runs are taken over when the lease expires; cap is respected", async () => {
  const executions = new Map<string, number>();
  let concurrent = 0;
  let peak = 0;
  const wf = workflow("work", async (ctx, i: number) => {
    for (let s = 0; s < 3; s++) {
      await ctx.step(`s${s}`, async ({ idempotencyKey }) => {
        executions.set(idempotencyKey, (executions.get(idempotencyKey) ?? 0) + 1);
        concurrent++;
        peak = Math.max(peak, concurrent);
        await new Promise((r) => setTimeout(r, 2));
        concurrent--;
      });
    }
    return i;
  });
  const store = new MemoryRunStore();
  const registry = new WorkflowRegistry([wf]);
  // A "dead" worker: claims runs and never executes them.
  const now = Date.now();
  for (let i = 0; i < 20; i++) {
    await store.createRun({
      tenantId: T,
      id: `r${i}`,
      workflow: "work",
      input: i,
      parentRunId: null,
      startedBy: "u",
      now,
    });
  }
  const stolen = await store.claimRuns("dead", now, now + 300, 5);
  assert.equal(stolen.length, 5);
  const w = new Worker(store, registry, {
    leaseMs: 300,
    heartbeatMs: 100,
    pollMs: 20,
    maxConcurrent: 4,
  });
  const t0 = Date.now();
  await w.start();
  await waitFor(
    async () =>
      (await store.listRuns({ tenantId: T, status: "completed", limit: 50 })).length === 20,
  );
  await w.stop();
  assert.ok(Date.now() - t0 >= 250, "the stolen runs waited for their lease to expire");
  assert.ok(peak <= 4, `peak concurrency ${peak}`);
  assert.equal(executions.size, 60);
  assert.ok([...executions.values()].every((n) => n === 1));
});

async function waitFor(cond: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
