/**
 * Replayed code that no longer matches the history blocks the run (the error
 * visible, no compensation, a backoff instead of a hot loop) until code that
 * matches resumes it. (The error's message: runtime.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { Harness } from "../../support/harness.ts";

const T = "t1";

test("non-determinism blocks the run (error visible, no compensation, backoff) until fixed code resumes it", async () => {
  const compensated: string[] = [];
  const codeA = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("charge", () => 1);
    await ctx.sleep("1h");
    return "A";
  });
  const codeB = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("reserve", () => 1);
    await ctx.sleep("1h");
    return "B";
  });
  const codeA2 = workflow("order", async (ctx) => {
    ctx.saga().onFailure("refund", () => compensated.push("refund"));
    await ctx.step("charge", () => 1);
    await ctx.sleep("1h");
    return "A'";
  });
  const store = new MemoryRunStore();
  const hA = new Harness(store, [codeA]);
  await hA.start("order", null, "r1");
  assert.deepEqual(await hA.drain(), ["waiting"]);

  const hB = new Harness(store, [codeB], hA.clock);
  hB.clock.advance(3_600_000);
  assert.deepEqual(await hB.drain(), ["waiting"]);
  let r = (await store.getRun(T, "r1"))!;
  assert.equal(r.status, "waiting");
  assert.equal(r.error?.name, "NonDeterminismError");
  assert.match(r.error.message, /history has step 'charge' but the code now calls step 'reserve'/);
  assert.ok(r.wakeAt! >= hB.clock.now() + 60_000, "backs off instead of a hot loop");
  assert.deepEqual(compensated, []);
  let hist = await store.loadHistory(T, "r1", 0);
  assert.equal(hist.filter((e) => e.type === "nondeterminism").length, 1);
  // Not due again before the backoff; a second try under B records no second event.
  assert.deepEqual(await hB.drain(), []);
  hB.clock.advance(60_000);
  assert.deepEqual(await hB.drain(), ["waiting"]);
  hist = await store.loadHistory(T, "r1", 0);
  assert.equal(hist.filter((e) => e.type === "nondeterminism").length, 1);

  const hA2 = new Harness(store, [codeA2], hA.clock);
  hA2.clock.advance(60_000);
  assert.deepEqual(await hA2.drain(), ["completed"]);
  r = (await store.getRun(T, "r1"))!;
  assert.equal(r.output, "A'");
  assert.equal(r.error, null);
  assert.deepEqual(compensated, []);
});
