/** A cancel request reaches a step that is running, through its AbortSignal. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { executeRun } from "../../../src/engine/durable/executor.ts";
import type { RunContext } from "../../../src/engine/durable/context.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import type { AnyWorkflowDefinition } from "../../../src/engine/durable/types.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const NOW = 1_700_000_000_000;

/** Runs `wf` as r1 and calls requestCancel on its context once `running` resolves. */
async function cancelWhileRunning(wf: AnyWorkflowDefinition, running: Promise<void>) {
  const store = new MemoryRunStore();
  await store.createRun({
    tenantId: T,
    id: "r1",
    workflow: wf.name,
    input: null,
    parentRunId: null,
    startedBy: "alice",
    now: NOW,
  });
  const [run] = await store.claimRuns("w1", NOW, NOW + 5_000, 1);
  let ctx: RunContext | undefined;
  const outcome = executeRun(run!, {
    store,
    registry: new WorkflowRegistry([wf]),
    owner: "w1",
    onContext: (c) => (ctx = c ?? ctx),
  });
  await running;
  ctx!.requestCancel(); // what the worker does when a heartbeat sees cancel_requested
  const result = await outcome;
  const history = (await store.loadHistory(T, "r1", 0)).map((e) => `${e.type}:${e.name}`);
  return { result, history, run: await store.getRun(T, "r1") };
}

test(
  "a running step's signal aborts on cancel; the step ends cancelled, not retried, and compensations run",
  { timeout: 5_000 },
  async () => {
    const done: string[] = [];
    let attempts = 0;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const wf = workflow("long", async (ctx) => {
      const saga = ctx.saga();
      await ctx.step("book", () => done.push("book"));
      saga.onFailure("unbook", () => done.push("unbook"));
      await ctx.step("poll", ({ signal }) => {
        attempts++;
        started();
        return new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason as Error)),
        );
      });
      done.push("after");
    });
    const { result, history, run } = await cancelWhileRunning(wf, running);
    assert.equal(result, "cancelled");
    assert.equal(attempts, 1);
    assert.deepEqual(done, ["book", "unbook"]);
    assert.deepEqual(history, ["step:book", "cancelled:null", "step:unbook"]);
    assert.equal(run!.error!.name, "CancelledFailure");
  },
);

test(
  "a step that ignores the signal finishes and is recorded; the next call is cancelled",
  { timeout: 5_000 },
  async () => {
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const wf = workflow("stubborn", async (ctx) => {
      await ctx.step("work", () => {
        started();
        return new Promise<string>((r) => (release = () => r("done")));
      });
      await ctx.step("next", () => "never");
    });
    const p = cancelWhileRunning(wf, running);
    await running;
    setTimeout(() => release(), 5);
    const { result, history } = await p;
    assert.equal(result, "cancelled");
    assert.deepEqual(history, ["step:work", "cancelled:null"]);
  },
);
