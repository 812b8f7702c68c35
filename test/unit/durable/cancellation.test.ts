/**
 * Cancelling a run: the next ctx call throws, compensations run, the run ends
 * cancelled; a run cancelled before it starts never runs. (A cancel reaching a
 * step already running: cancel-running-step.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { Harness } from "../../support/harness.ts";

const T = "t1";

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
