/**
 * When a step's completion becomes durable (the history writer's deferred records): before the
 * run's next durable action, and the last ones in the same write as the outcome.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunEvent } from "../../../src/domain/run.ts";
import type { FinishExtras, Lease } from "../../../src/engine/durable/run-store-port.ts";
import type { WorkflowFailure } from "../../../src/domain/workflow-failure.ts";
import { workflow } from "../../../src/workflow.ts";
import { Harness } from "../../support/harness.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";

/** Counts separate appends and the events each finish carries. */
class CountingStore extends MemoryRunStore {
  appends = 0;
  finishEvents: number[] = [];
  override appendEvent(lease: Lease, event: RunEvent): Promise<boolean> {
    this.appends++;
    return super.appendEvent(lease, event);
  }
  override finish(
    lease: Lease,
    status: "completed" | "failed" | "cancelled",
    output: unknown,
    error: WorkflowFailure | null,
    now: number,
    extras?: FinishExtras,
  ): Promise<boolean> {
    this.finishEvents.push(extras?.events.length ?? 0);
    return super.finish(lease, status, output, error, now, extras);
  }
  recordedSteps(runId: string): (string | null)[] {
    const m = this.events.get(`${T}\u0000${runId}`);
    return [...(m?.values() ?? [])].filter((e) => e.type === "step").map((e) => e.name);
  }
}

test("each step's function runs only after every earlier completion is recorded", async () => {
  const store = new CountingStore();
  const seen: (string | null)[][] = [];
  const wf = workflow("chain", async (ctx) => {
    await ctx.step("a", () => 1);
    await ctx.step("b", () => seen.push(store.recordedSteps("r1")));
    await Promise.all([ctx.step("p", () => 2), ctx.step("q", () => 3)]);
    await ctx.step("c", () => seen.push(store.recordedSteps("r1")));
    return "done";
  });
  const h = new Harness(store, [wf]);
  await h.start("chain", null, "r1");
  assert.deepEqual(await h.drain(), ["completed"]);
  assert.deepEqual(seen, [["a"], ["a", "b", "p", "q"]]);
  // a, b, p and q were appended before a later step ran; c went with the outcome.
  assert.equal(store.appends, 4);
  assert.deepEqual(store.finishEvents, [1]);
  assert.deepEqual(store.recordedSteps("r1"), ["a", "b", "p", "q", "c"]);
});

test("a run that parks records its pending completions before it suspends", async () => {
  const store = new CountingStore();
  const wf = workflow("park", async (ctx) => {
    await ctx.step("a", () => 1);
    return ctx.waitForSignal("go");
  });
  const h = new Harness(store, [wf]);
  await h.start("park", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting"]);
  assert.deepEqual(store.recordedSteps("r1"), ["a"]);
});

test("a failing run writes the completed steps' records with its failure", async () => {
  const store = new CountingStore();
  let runsOfA = 0;
  const wf = workflow("fails", async (ctx) => {
    await ctx.step("a", () => ++runsOfA);
    throw new Error("after a");
  });
  const h = new Harness(store, [wf]);
  await h.start("fails", null, "r1");
  assert.deepEqual(await h.drain(), ["failed"]);
  assert.deepEqual(store.finishEvents, [1]);
  assert.deepEqual(store.recordedSteps("r1"), ["a"]);
  assert.equal(runsOfA, 1);
});
