/**
 * A worker resumed after a freeze may claim again a run it is still executing
 * (its own lease ran out, so the run is runnable; the owner is the same). Two
 * executions under one owner are not told apart by the fence, so the worker
 * must never run both: the old one is stopped, the new one waits for it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const NOW = 1_700_000_000_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("a claim that returns a run still executing locally does not start a second execution", async () => {
  let t = NOW;
  let inS0 = 0;
  let maxInS0 = 0;
  let s0Calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: () => void;
  const s0Started = new Promise<void>((r) => (started = r));
  const wf = workflow("held", async (ctx) => {
    await ctx.step("s0", async () => {
      s0Calls++;
      maxInS0 = Math.max(maxInS0, ++inS0);
      started();
      await gate;
      inS0--;
    });
    return ctx.step("s1", () => "done");
  });
  const store = new MemoryRunStore();
  const base = { tenantId: T, id: "r1", workflow: "held", input: null, parentRunId: null };
  await store.createRun({ ...base, startedBy: "alice", now: t });
  const outcomes: string[] = [];
  const worker = new Worker(store, new WorkflowRegistry([wf]), {
    owner: "w1",
    leaseMs: 5_000,
    heartbeatMs: 60_000, // no heartbeat: the lease runs out by the clock alone
    pollMs: 60_000,
    now: () => t,
    onOutcome: (_run, o) => outcomes.push(typeof o === "string" ? o : o.message),
  });
  await worker.start();
  try {
    await s0Started;
    t += 8_000; // frozen past the lease while s0 ran
    worker.notify(); // the claim finds the run runnable again, leased to this same worker
    await sleep(100);
    assert.equal(maxInS0, 1, "a second execution ran s0 alongside the first");
    assert.equal(worker.activeCount, 1);
    release();
    await worker.idle();
    const r = await store.getRun(T, "r1");
    assert.equal(r?.status, "completed");
    assert.equal(r?.output, "done");
    // The first execution ends lost; the second replays it (s0 was never recorded: an in-flight rerun).
    assert.deepEqual(outcomes, ["lost", "completed"]);
    assert.equal(s0Calls, 2);
    assert.equal(maxInS0, 1);
  } finally {
    release();
    await worker.stop();
  }
});
