/** ctx.saga(): when the workflow fails, its compensations run in reverse order, each as a step. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { Harness } from "../../support/harness.ts";

const T = "t1";

test("saga: compensations run in reverse order, each as a step, when the workflow fails", async () => {
  const done: string[] = [];
  const wf = workflow("order", async (ctx) => {
    const saga = ctx.saga();
    await ctx.step("charge", () => done.push("charge"));
    saga.onFailure("refund", () => done.push("refund"));
    await ctx.step("reserve", () => done.push("reserve"));
    saga.onFailure(() => ctx.step("release", () => done.push("release")));
    await ctx.step(
      "ship",
      () => {
        throw new Error("no truck");
      },
      { retry: { maxAttempts: 1 } },
    );
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("order", null, "r1");
  assert.deepEqual(await h.drain(), ["failed"]);
  assert.deepEqual(done, ["charge", "reserve", "release", "refund"]);
  const r = await store.getRun(T, "r1");
  assert.match(r!.error!.message, /no truck/);
  const hist = await store.loadHistory(T, "r1", 0);
  assert.deepEqual(
    hist.map((e) => e.name),
    ["charge", "reserve", "ship", "release", "refund"],
  );
});
