/**
 * A worker takes over the runs of a dead worker once their lease expires, and
 * never runs more than its maxConcurrent at once; every step runs exactly once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";

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
