/**
 * The worker's loops outlive an unreachable store: failed claims are reported
 * and retried with a growing pause, failed heartbeats are reported, hooks that
 * throw stop nothing, and runs proceed once the store answers again.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { HeldRun } from "../../../src/engine/durable/run-store-port.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import type { Run } from "../../../src/domain/run.ts";
import { UnavailableError } from "../../../src/domain/unavailable.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const down = () => new UnavailableError("the database is unavailable; retry later");

/** Claims fail while `claimOutage` > 0 (counting down); heartbeats while `heartbeatOutage` > 0. */
class OutageStore extends MemoryRunStore {
  claimOutage = 0;
  heartbeatOutage = 0;
  readonly claimsAt: number[] = [];
  override claimRuns(...args: Parameters<MemoryRunStore["claimRuns"]>): Promise<Run[]> {
    this.claimsAt.push(Date.now());
    if (this.claimOutage > 0) {
      this.claimOutage--;
      return Promise.reject(down());
    }
    return super.claimRuns(...args);
  }
  override heartbeat(...args: Parameters<MemoryRunStore["heartbeat"]>): Promise<HeldRun[]> {
    if (this.heartbeatOutage > 0) {
      this.heartbeatOutage--;
      return Promise.reject(down());
    }
    return super.heartbeat(...args);
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);
before(() => process.on("unhandledRejection", onUnhandled));
after(() => process.off("unhandledRejection", onUnhandled));

const slow = workflow("slow", async (ctx) => {
  await ctx.step("a", () => new Promise((r) => setTimeout(r, 120)));
  return "done";
});

async function startRun(store: MemoryRunStore, id: string): Promise<void> {
  await store.createRun({
    tenantId: "t1",
    id,
    workflow: "slow",
    input: null,
    parentRunId: null,
    startedBy: "alice",
    now: Date.now(),
  });
}

async function completed(store: MemoryRunStore, id: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await store.getRun("t1", id))?.status !== "completed") {
    assert.ok(Date.now() < deadline, `run ${id} did not complete`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("failed claims are reported and retried with a growing pause; the run completes after", async () => {
  const store = new OutageStore();
  store.claimOutage = 5;
  const errors: string[] = [];
  const worker = new Worker(store, new WorkflowRegistry([slow]), {
    pollMs: 20,
    onError: (what, e) => errors.push(`${what}: ${e.message}`),
  });
  await worker.start();
  try {
    await startRun(store, "r1");
    await completed(store, "r1", 5_000);
  } finally {
    await worker.stop();
  }
  assert.equal(errors.length, 5);
  assert.match(errors[0]!, /^claim: the database is unavailable/);
  // Pauses after failures 1..5 are 20, 40, 80, 160, 320 ms: each at least the one before.
  const gaps = store.claimsAt.slice(1, 6).map((t, i) => t - store.claimsAt[i]!);
  assert.ok(gaps[4]! >= 300, `the pause grows: ${gaps.join(", ")} ms`);
  for (let i = 1; i < gaps.length; i++) assert.ok(gaps[i]! >= gaps[i - 1]! - 5, gaps.join(", "));
});

test("failed heartbeats are reported; hooks that throw stop neither loop nor run", async () => {
  const store = new OutageStore();
  store.claimOutage = 1;
  store.heartbeatOutage = 2;
  let errorsSeen = 0;
  const outcomes: string[] = [];
  const worker = new Worker(store, new WorkflowRegistry([slow]), {
    pollMs: 20,
    heartbeatMs: 30,
    leaseMs: 2_000,
    onError: () => {
      errorsSeen++;
      throw new Error("a logging hook that throws");
    },
    onOutcome: (run, o) => {
      outcomes.push(`${run.id}: ${String(o)}`);
      throw new Error("an outcome hook that throws");
    },
  });
  await worker.start();
  try {
    await startRun(store, "r1");
    await completed(store, "r1", 5_000);
    await startRun(store, "r2");
    worker.notify();
    await completed(store, "r2", 5_000);
    await worker.idle();
  } finally {
    await worker.stop();
  }
  assert.equal(errorsSeen, 3, "one claim and two heartbeats failed");
  assert.deepEqual(outcomes.sort(), ["r1: completed", "r2: completed"]);
  assert.deepEqual(unhandled, []);
});
