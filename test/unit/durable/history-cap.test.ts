/**
 * WF_RUN_MAX_HISTORY on the run's own calls: a generation may take that many
 * positions; the next new call fails the run with a message naming the setting
 * (continueAsNew starts again). Replaying what was recorded never trips it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { workflow } from "../../../src/workflow.ts";
import { Harness } from "../../support/harness.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";

const steps = workflow("steps", async (ctx, n: number) => {
  for (let i = 0; i < n; i++) await ctx.step(`s${i}`, () => i);
  return n;
});

const looping = workflow("looping", async (ctx, round: number) => {
  for (let i = 0; i < 8; i++) await ctx.step(`s${i}`, () => i);
  if (round < 3) await ctx.continueAsNew(round + 1);
  return round;
});

test("a run that passes the cap fails naming it; under it, or looping with continueAsNew, it completes", async () => {
  const store = new MemoryRunStore();
  const h = new Harness(store, [steps, looping]);
  h.contextOptions = { maxHistoryEvents: 10 };
  await h.start("steps", 10, "at-cap");
  await h.start("steps", 11, "past-cap");
  await h.start("looping", 1, "loop");
  assert.deepEqual((await h.drain()).sort(), ["completed", "completed", "failed"]);
  assert.equal((await store.getRun(T, "at-cap"))!.output, 10);
  const failed = await store.getRun(T, "past-cap");
  assert.equal(failed!.status, "failed");
  assert.match(failed!.error!.message, /reached 10 events .*WF_RUN_MAX_HISTORY.*continueAsNew/);
  assert.equal((await store.loadHistory(T, "past-cap", 0)).length, 10, "nothing past the cap");
  assert.equal((await store.getRun(T, "loop"))!.output, 3);
});

test("a history recorded past a lowered cap replays; its next new call fails", async () => {
  const store = new MemoryRunStore();
  const wait = workflow("wait-then-step", async (ctx) => {
    for (let i = 0; i < 5; i++) await ctx.step(`s${i}`, () => i);
    await ctx.waitForSignal("go");
    return ctx.step("after", () => "done");
  });
  const first = new Harness(store, [wait]);
  await first.start("wait-then-step", null, "r1");
  assert.deepEqual(await first.drain(), ["waiting"]);
  // Redeployed with a cap below what the run has: the replay goes through.
  const second = new Harness(store, [wait], first.clock);
  second.contextOptions = { maxHistoryEvents: 3 };
  await store.sendSignal(T, "r1", { id: "s", name: "go", payload: null }, first.clock.now());
  assert.deepEqual(await second.drain(), ["failed"]);
  assert.match((await store.getRun(T, "r1"))!.error!.message, /reached 3 events/);
  const types = (await store.loadHistory(T, "r1", 0)).map((e) => e.type);
  assert.ok(types.includes("signal"), `the replay went past the cap to the wait: ${types.join()}`);
  assert.ok(!types.some((t, i) => t === "step" && i >= 5), "the new step was not run");
});
