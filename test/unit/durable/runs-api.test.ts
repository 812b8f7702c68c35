/**
 * The runs API (DurableRuns, behind /v1/runs): idempotent start by id, unknown
 * workflows, listing with a cursor, signals (names starting with '__' are
 * reserved for the engine), cancel and history; the engine's own workflows
 * (taskflow.…) are unknown to callers; the starter must be a known user.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../../src/workflow.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { Worker } from "../../../src/engine/durable/worker.ts";
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { START_ENGINE_RUN } from "../../../src/engine/durable/runs-api.ts";
import { engineWorkflow } from "../../../src/engine/durable/reserved-workflows.ts";
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

test("runs API: a name of the engine's namespace is NotFound for callers, word for word as an unknown one", async () => {
  const own = engineWorkflow("taskflow.own", () => Promise.resolve("mine"));
  const store = new MemoryRunStore();
  const api = new DurableRuns(store, new WorkflowRegistry([own]));
  const unknown = await api.start(T, "nope", { startedBy: "u" }).catch((e: Error) => e);
  for (const name of ["taskflow.own", "TASKFLOW.own", "taskflow.definition-run"]) {
    const e = await api.start(T, name, { startedBy: "u" }).catch((e: Error) => e);
    assert.equal((e as { code?: string }).code, "NotFound", name);
    assert.equal((e as Error).message, (unknown as Error).message.replace("nope", name));
  }
  await assert.rejects(api.start(T, own, { startedBy: "u" }), { code: "NotFound" });
  assert.equal((await api.list(T, {})).items.length, 0);
  const { created } = await api[START_ENGINE_RUN](T, "taskflow.own", { startedBy: "u" });
  assert.equal(created, true, "the engine's own start still works");
});

test("runs API: the starter must be a known user — before the id and the input", async () => {
  const wf = workflow("w", () => Promise.resolve(1));
  const directory = createDirectory({ users: ["alice"], groups: {} });
  const api = new DurableRuns(
    new MemoryRunStore(),
    new WorkflowRegistry([wf]),
    undefined,
    Date.now,
    directory,
  );
  await assert.rejects(api.start(T, "w", { startedBy: "zed", id: "bad id!" }), {
    code: "Validation",
    message: "X-Actor-Id: unknown user 'zed'",
  });
  await assert.rejects(api.start(T, "nope", { startedBy: "zed" }), { code: "NotFound" });
  assert.equal((await api.list(T, {})).items.length, 0);
  assert.equal((await api.start(T, "w", { startedBy: "alice" })).created, true);
});

async function waitFor(cond: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
