/**
 * The runs API (DurableRuns, behind /v1/runs): idempotent start by id, unknown
 * workflows, listing with a cursor, signals (names starting with '__' are
 * reserved for the engine), cancel and history.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";

test("runs API: idempotent start by id, unknown workflow, list with cursor, signal, cancel", async () => {
  const wf = workflow("greet", async (ctx, name: string) => {
    const greeting = await ctx.waitForSignal<string>("greeting");
    return `${greeting} ${name}`;
  });
  const store = new MemoryRunStore();
  const registry = new WorkflowRegistry([wf]);
  const worker = new Worker(store, registry, { pollMs: 10, heartbeatMs: 50 });
  await worker.start();
  const api = new DurableRuns(store, registry, worker);
  try {
    const a = await api.start(T, "greet", { input: "ann", id: "run-a", startedBy: "u" });
    assert.equal(a.created, true);
    const again = await api.start(T, "greet", { input: "other", id: "run-a", startedBy: "u" });
    assert.equal(again.created, false);
    assert.equal(again.run.input, "ann");
    await assert.rejects(api.start(T, "nope", { startedBy: "u" }), { code: "NotFound" });
    await assert.rejects(api.start(T, "greet", { id: "bad id!", startedBy: "u" }), {
      code: "Validation",
    });
    const b = await api.start(T, wf, { input: "bob", startedBy: "u" });
    await worker.idle();
    assert.equal((await api.get(T, "run-a")).status, "waiting");
    const page1 = await api.list(T, { workflow: "greet", limit: 1 });
    assert.equal(page1.items.length, 1);
    assert.notEqual(page1.nextCursor, null);
    const page2 = await api.list(T, { workflow: "greet", limit: 1, cursor: page1.nextCursor! });
    assert.equal(page2.items.length, 1);
    assert.equal(page2.nextCursor, null);
    await api.signal(T, "run-a", "greeting", "hello");
    await api.cancel(T, b.run.id);
    await waitFor(async () => (await api.get(T, b.run.id)).status === "cancelled");
    await waitFor(async () => (await api.get(T, "run-a")).status === "completed");
    assert.equal((await api.get(T, "run-a")).output, "hello ann");
    await assert.rejects(api.signal(T, "run-a", "greeting", 1), { code: "Conflict" });
    await assert.rejects(api.signal(T, "zzz", "greeting", 1), { code: "NotFound" });
    const hist = await api.history(T, "run-a");
    assert.deepEqual(
      hist.map((e) => e.type),
      ["signal_wait", "signal"],
    );
  } finally {
    await worker.stop();
  }
});

test("runs API: signal names starting with '__' are reserved (400 Validation)", async () => {
  const wf = workflow("wait", async (ctx) => ctx.waitForSignal("go"));
  const store = new MemoryRunStore();
  const api = new DurableRuns(store, new WorkflowRegistry([wf]));
  await api.start(T, "wait", { id: "r1", startedBy: "u" });
  await assert.rejects(api.signal(T, "r1", "__task:x", null), { code: "Validation" });
  await assert.rejects(api.signal(T, "r1", "__child:r1:0", null), { code: "Validation" });
  await api.signal(T, "r1", "_single_underscore_ok", null);
});

async function waitFor(cond: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
