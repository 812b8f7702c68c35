/** ctx.continueAsNew: a long-lived run restarts with a fresh history, so it stays bounded. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { Harness } from "../../support/harness.ts";

const T = "t1";

test("continueAsNew keeps history bounded over 10,000 iterations", async () => {
  const wf = workflow("counter", async (ctx, n: number) => {
    await ctx.step("tick", () => n);
    if (n < 10_000) await ctx.continueAsNew(n + 1);
    return n;
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("counter", 1, "r1");
  assert.deepEqual(await h.drain(), ["completed"]);
  const r = await store.getRun(T, "r1");
  assert.equal(r!.output, 10_000);
  assert.equal(r!.generation, 9_999);
  assert.equal(store.events.get(`${T}\u0000r1`)!.size, 1);
  assert.equal((await store.loadHistory(T, "r1", r!.firstSeq)).length, 1);
});
