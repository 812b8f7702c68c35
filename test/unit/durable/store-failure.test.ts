/**
 * A durable write that fails (the store is unreachable, a statement errs) is
 * not the workflow's failure: the execution stops without recording anything,
 * the run is replayed later from what was recorded, and workflow code never
 * sees the store's error — not even code that catches everything.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunEvent } from "../../../src/domain/run.ts";
import type { Lease } from "../../../src/engine/durable/run-store-port.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

/** Fails the first append of each listed seq, as a dropped connection would. */
class FlakyStore extends MemoryRunStore {
  constructor(private readonly failAt: Set<number>) {
    super();
  }
  override appendEvent(lease: Lease, event: RunEvent): Promise<boolean> {
    if (this.failAt.delete(event.seq)) return Promise.reject(new Error("connection lost"));
    return super.appendEvent(lease, event);
  }
}

test("a failed durable write stops the execution; the replay completes, code never sees it", async () => {
  const runs: Record<string, number> = {};
  const count = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const wf = workflow("flaky", async (ctx) => {
    const out: string[] = [];
    for (const name of ["a", "b", "c"]) {
      try {
        out.push(await ctx.step(name, () => (count(name), name)));
      } catch (e) {
        out.push(`caught ${(e as Error).message}`);
      }
    }
    return out.join(",");
  });
  // seq 0 is step a's record, written before step b starts.
  const store = new FlakyStore(new Set([0]));
  const outcomes: string[] = [];
  const worker = new Worker(store, new WorkflowRegistry([wf]), {
    pollMs: 10,
    onOutcome: (_run, o) => outcomes.push(o instanceof Error ? `error: ${o.message}` : o),
  });
  await worker.start();
  try {
    await store.createRun({
      tenantId: "t1",
      id: "r1",
      workflow: "flaky",
      input: null,
      parentRunId: null,
      startedBy: "alice",
      now: Date.now(),
    });
    worker.notify();
    const deadline = Date.now() + 5_000;
    while ((await store.getRun("t1", "r1"))!.status !== "completed") {
      assert.ok(Date.now() < deadline, `not completed: ${JSON.stringify(outcomes)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await worker.stop();
  }
  // The first execution stopped at the failed write and the worker released the run.
  assert.deepEqual(outcomes, ["error: connection lost", "completed"]);
  assert.equal((await store.getRun("t1", "r1"))!.output, "a,b,c");
  // a ran again (its record was lost with the write); b and c once.
  assert.deepEqual(runs, { a: 2, b: 1, c: 1 });
});
