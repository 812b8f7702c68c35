/**
 * A history written in the persisted format (as rows already in databases hold
 * it) replays: every recorded call returns its record without running again,
 * completion events take no call position, and the first call past the end
 * runs live at the next free position.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunEvent } from "../../../src/domain/run-event.ts";
import type { Lease } from "../../../src/engine/durable/run-store-port.ts";
import { workflow } from "../../../src/workflow.ts";
import { Harness } from "../../support/harness.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const failure = { name: "Error", message: "flaky", stack: null, nonRetryable: false };

test("a recorded history replays: recorded calls return their records, the next call runs live", async () => {
  const ran: string[] = [];
  const wf = workflow("recorded", async (ctx) => {
    const a = await ctx.step("a", () => void ran.push("a"));
    const b = await ctx.step("b", () => void ran.push("b"));
    await ctx.sleep("1h");
    const now = ctx.now();
    const id = ctx.uuid();
    const patched = ctx.patched("v2");
    const signal = await ctx.waitForSignal("go");
    const c = await ctx.step("c", () => {
      ran.push("c");
      return "live";
    });
    return { a, b, now, id, patched, signal, c };
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("recorded", null, "r1");
  const t = h.clock.now();
  const history: RunEvent[] = [
    { seq: 0, type: "step", name: "a", at: t, data: { result: 1 } },
    { seq: 1, type: "step_retry", name: "b", at: t, data: { attempt: 1, retryAt: t, failure } },
    // A completion event: it ends the call at 1 and takes no position of its own.
    { seq: 2, type: "step", name: "b", at: t, data: { result: 2, ref: 1 } },
    { seq: 3, type: "timer", name: "sleep", at: t, data: { wakeAt: t - 1 } },
    { seq: 4, type: "now", name: null, at: t, data: { value: 42 } },
    { seq: 5, type: "uuid", name: null, at: t, data: { value: "u-1" } },
    { seq: 6, type: "patch", name: "v2", at: t, data: null },
    { seq: 7, type: "signal_wait", name: "go", at: t, data: { deadline: null } },
    {
      seq: 8,
      type: "signal",
      name: "go",
      at: t,
      data: { payload: { ok: true }, signalId: "s", ref: 7 },
    },
  ];
  await h.store.claimRuns("w0", t, t + 5_000, 1);
  const lease: Lease = { tenantId: T, runId: "r1", owner: "w0" };
  for (const e of history) assert.equal(await h.store.appendEvent(lease, e), true);
  await h.store.release(lease, t);

  assert.deepEqual(await h.drain(), ["completed"]);
  assert.deepEqual((await h.store.getRun(T, "r1"))!.output, {
    a: 1,
    b: 2,
    now: 42,
    id: "u-1",
    patched: true,
    signal: { ok: true },
    c: "live",
  });
  assert.deepEqual(ran, ["c"]);
  const after = await h.store.loadHistory(T, "r1", 0);
  assert.deepEqual(after.slice(0, history.length), history);
  assert.deepEqual(
    after.slice(history.length).map((e) => [e.seq, e.type, e.name, e.data]),
    [[9, "step", "c", { result: "live" }]],
  );
});
