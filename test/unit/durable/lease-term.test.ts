/**
 * An execution acts only while its lease is held by the clock: a node frozen
 * past its lease and resumed must not start a step the node that took the run
 * over may have run already (chaos `node-stop`, docs/chaos.md).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { executeRun } from "../../../src/engine/durable/executor.ts";
import { LeaseTerm } from "../../../src/engine/durable/lease-term.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import type { AnyWorkflowDefinition } from "../../../src/engine/durable/types.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const NOW = 1_700_000_000_000;
const LEASE = 5_000;
/** Longer than the lease: what a SIGSTOP of 8 s looks like to the frozen node's clock. */
const FREEZE = 8_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function newRun(store: MemoryRunStore, wf: AnyWorkflowDefinition, now: number) {
  const input = { tenantId: T, id: "r1", workflow: wf.name, input: null, parentRunId: null };
  await store.createRun({ ...input, startedBy: "alice", now });
}

test("a lease term is renewed while it runs, never after it ran out", () => {
  let t = NOW;
  const term = new LeaseTerm(NOW + LEASE, () => t);
  t += 1_500;
  term.renew(t + LEASE);
  assert.equal(term.held, true);
  t += LEASE + 1; // frozen past the renewed lease
  assert.equal(term.held, false);
  term.renew(t + LEASE); // a late heartbeat answer: the run may have changed hands meanwhile
  assert.equal(term.held, false);
});

test("a run whose lease ran out during its in-memory wait does not start its next step", async () => {
  let t = NOW;
  const now = () => t;
  const calls: string[] = [];
  const wf = workflow("wait", async (ctx) => {
    await ctx.step("s0", () => calls.push("s0"));
    await ctx.sleep(200); // shorter than inMemoryWaitMs: awaited in memory, lease held
    await ctx.step("s1", () => calls.push("s1"));
  });
  const store = new MemoryRunStore();
  await newRun(store, wf, t);
  const [run] = await store.claimRuns("w1", t, t + LEASE, 1);
  const outcome = executeRun(run!, {
    store,
    registry: new WorkflowRegistry([wf]),
    owner: "w1",
    contextOptions: { now },
    term: new LeaseTerm(t + LEASE, now),
  });
  await sleep(50);
  t += FREEZE; // frozen during the timer; no heartbeat renewed the lease
  assert.equal(await outcome, "lost");
  assert.deepEqual(calls, ["s0"]);
});

test("a step does not start once the lease ran out during the step before it", async () => {
  let t = NOW;
  const now = () => t;
  const calls: string[] = [];
  const wf = workflow("two", async (ctx) => {
    await ctx.step("s0", () => {
      calls.push("s0");
      t += FREEZE;
    });
    await ctx.step("s1", () => calls.push("s1"));
  });
  const store = new MemoryRunStore();
  await newRun(store, wf, t);
  const [run] = await store.claimRuns("w1", t, t + LEASE, 1);
  const outcome = await executeRun(run!, {
    store,
    registry: new WorkflowRegistry([wf]),
    owner: "w1",
    contextOptions: { now },
    term: new LeaseTerm(t + LEASE, now),
  });
  assert.equal(outcome, "lost");
  assert.deepEqual(calls, ["s0"]);
});

test("a node resumed after a freeze does not run the step the node that took over recorded", async () => {
  let t = NOW;
  const now = () => t;
  let s0 = 0;
  let s1 = 0;
  let started!: () => void;
  const s0Done = new Promise<void>((r) => (started = r));
  const wf = workflow("mix", async (ctx) => {
    await ctx.step("s0", () => {
      s0++;
      started();
    });
    await ctx.sleep(300);
    await ctx.step("s1", () => s1++);
    return "done";
  });
  const store = new MemoryRunStore();
  await newRun(store, wf, t);
  const registry = new WorkflowRegistry([wf]);
  // No heartbeat and no poll within the test: a's clock jumps past its lease as if frozen.
  const quiet = { leaseMs: LEASE, heartbeatMs: 60_000, pollMs: 60_000, now };
  const a = new Worker(store, registry, { ...quiet, owner: "a" });
  const b = new Worker(store, registry, { ...quiet, owner: "b", pollMs: 10 });
  await a.start();
  try {
    await s0Done;
    await sleep(50); // a is in its 300 ms timer
    t += FREEZE;
    await b.start(); // b takes the run over: replays s0 and the timer, runs s1, completes
    await sleep(400); // a's timer has fired
    await Promise.all([a.idle(), b.idle()]);
    const r = await store.getRun(T, "r1");
    assert.equal(r?.status, "completed");
    assert.equal(s0, 1);
    assert.equal(s1, 1, "s1 ran again on the resumed node");
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

test("a run whose execution lapsed while nobody took it over is released and replayed, not held for ever", async () => {
  let t = NOW;
  const now = () => t;
  let s1 = 0;
  let started!: () => void;
  const s0Done = new Promise<void>((r) => (started = r));
  const wf = workflow("mix", async (ctx) => {
    await ctx.step("s0", () => started());
    await ctx.sleep(300);
    await ctx.step("s1", () => s1++);
    return "done";
  });
  const store = new MemoryRunStore();
  await newRun(store, wf, t);
  const outcomes: string[] = [];
  // Heartbeats keep running: the store's heartbeat extends every run of the owner,
  // the lapsed one too, so only a release lets the run go on.
  const a = new Worker(store, new WorkflowRegistry([wf]), {
    owner: "a",
    leaseMs: LEASE,
    heartbeatMs: 20,
    pollMs: 60_000,
    now,
    onOutcome: (_run, o) => outcomes.push(typeof o === "string" ? o : o.message),
  });
  await a.start();
  try {
    await s0Done;
    await sleep(50);
    t += FREEZE;
    const deadline = Date.now() + 3_000;
    while ((await store.getRun(T, "r1"))?.status !== "completed" && Date.now() < deadline) {
      await sleep(20);
    }
    assert.equal((await store.getRun(T, "r1"))?.status, "completed");
    assert.deepEqual(outcomes, ["lost", "completed"]);
    assert.equal(s1, 1);
  } finally {
    await a.stop();
  }
});
