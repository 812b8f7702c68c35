/**
 * A run started locally while a heartbeat is in flight is missing from that
 * heartbeat's answer. It must not be judged lost: that stalled it until the
 * worker went idle (found by `npm run bench -- durable`).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";

test("a run started while a heartbeat is in flight is not dropped as lost", async () => {
  let releaseA!: () => void;
  const gateA = new Promise<void>((r) => (releaseA = r));
  const wf = workflow("w", async (ctx, name: string) => {
    if (name === "a") await ctx.step("hold", () => gateA); // keeps the worker busy, so heartbeats run
    return ctx.step("work", () => Promise.resolve(`done ${name}`));
  });
  const store = new MemoryRunStore();
  // Hold the first heartbeat's answer until run B has started.
  let releaseBeat!: () => void;
  const beatGate = new Promise<void>((r) => (releaseBeat = r));
  let beats = 0;
  let beatSent!: () => void;
  const firstBeatSent = new Promise<void>((r) => (beatSent = r));
  const heartbeat = store.heartbeat.bind(store);
  store.heartbeat = async (...args) => {
    const held = await heartbeat(...args); // answered as of now: B does not exist yet
    if (++beats === 1) {
      beatSent();
      await beatGate;
    }
    return held;
  };
  const registry = new WorkflowRegistry([wf]);
  const worker = new Worker(store, registry, { pollMs: 10, heartbeatMs: 20, leaseMs: 60_000 });
  await worker.start();
  try {
    const api = new DurableRuns(store, registry, worker);
    await api.start(T, "w", { id: "a", input: "a", startedBy: "u" });
    await firstBeatSent;
    await api.start(T, "w", { id: "b", input: "b", startedBy: "u" });
    releaseBeat();
    // B must finish while A still holds the worker (before the fix it waited for an idle worker and the 60 s lease).
    const deadline = Date.now() + 3_000;
    let b = await api.get(T, "b");
    while (b.status !== "completed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      b = await api.get(T, "b");
    }
    assert.equal(b.status, "completed");
    assert.equal(b.output, "done b");
  } finally {
    releaseA();
    await worker.stop();
  }
});
