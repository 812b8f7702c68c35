/**
 * Served workflows: a node without a workflow's code accepts starts of it
 * while a worker elsewhere records serving it (within SERVED_TTL_MS), never
 * hands such a run to its own worker, and answers 404 for names nobody serves.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { SERVED_TTL_MS } from "../../../src/engine/durable/served-workflows.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const here = workflow("here", (_ctx, n: number) => Promise.resolve(n));
const elsewhere = workflow("elsewhere", (ctx, n: number) => ctx.step("double", () => n * 2));

async function waitFor(cond: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("a start of a workflow only another worker serves: accepted, pending, run by that worker", async () => {
  const store = new MemoryRunStore();
  // This node's worker has `here` only.
  const local = new Worker(store, new WorkflowRegistry([here]), { pollMs: 10 });
  await local.start();
  const api = new DurableRuns(store, new WorkflowRegistry([here]), local);
  let remote: Worker | undefined;
  try {
    await assert.rejects(api.start(T, "elsewhere", { startedBy: "u" }), {
      code: "NotFound",
      message: /workflow 'elsewhere' was not found: .*no worker has served it/,
    });
    remote = new Worker(store, new WorkflowRegistry([elsewhere]), { pollMs: 10 });
    await remote.start(); // resolves once its names are recorded
    const { run, created } = await api.start(T, "elsewhere", {
      id: "r1",
      input: 21,
      startedBy: "u",
    });
    assert.equal(created, true);
    // Not leased to the local worker, which could not run it.
    assert.deepEqual([run.status, run.leaseOwner], ["pending", null]);
    await waitFor(async () => (await api.get(T, "r1")).status === "completed");
    assert.equal((await api.get(T, "r1")).output, 42);
    await assert.rejects(api.start(T, "nobody-serves", { startedBy: "u" }), { code: "NotFound" });
    // The input is still checked before the store is asked.
    await assert.rejects(api.start(T, "elsewhere", { id: "bad id!", startedBy: "u" }), {
      code: "Validation",
    });
  } finally {
    await remote?.stop();
    await local.stop();
  }
});

test("a name no worker refreshed for SERVED_TTL_MS is refused again, cached answers included", async () => {
  const store = new MemoryRunStore();
  await store.recordServed({ node: "w1", workflows: ["elsewhere"], now: 0, forgetBefore: 0 });
  let now = SERVED_TTL_MS - 1_000;
  let asked = 0;
  const lastServed = store.lastServed.bind(store);
  store.lastServed = (w) => (asked++, lastServed(w));
  const api = new DurableRuns(store, new WorkflowRegistry(), undefined, () => now);
  const start = () => api.start(T, "elsewhere", { startedBy: "u" });
  assert.equal((await start()).created, true);
  assert.equal((await start()).created, true);
  assert.equal(asked, 1, "the second start used the cached answer");
  // The cached answer ends with the TTL, not a minute after it was read.
  now = SERVED_TTL_MS;
  await assert.rejects(start(), { code: "NotFound" });
  assert.equal(asked, 2);
});

test("a worker refreshes its names periodically; the first record is done when start() resolves", async () => {
  const store = new MemoryRunStore();
  const worker = new Worker(store, new WorkflowRegistry([elsewhere]), { servedRefreshMs: 20 });
  await worker.start();
  try {
    const first = await store.lastServed("elsewhere");
    assert.notEqual(first, null);
    await waitFor(async () => ((await store.lastServed("elsewhere")) ?? 0) > first!);
  } finally {
    await worker.stop();
  }
  // No worker of no workflow records anything.
  const idle = new Worker(store, new WorkflowRegistry(), {});
  await idle.start();
  await idle.stop();
  assert.equal(store.served.size, 1);
});
