/**
 * Quarantine in the executor (docs/durable.md): a run claimed again and again
 * without ever parking is not executed once past the limit but quarantined,
 * and a run that parks in between never is, however often it is claimed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { executeRun } from "../../../src/engine/durable/executor.ts";
import { WorkflowRegistry } from "../../../src/engine/durable/registry.ts";
import { workflow } from "../../../src/workflow.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";

const T = "t1";
const NOW = 1_700_000_000_000;

test("claimed past quarantineAfter without parking: quarantined, not executed", async () => {
  let executions = 0;
  const wf = workflow("stuck", async (ctx) => {
    executions++;
    await ctx.step("s", () => 1);
  });
  const store = new MemoryRunStore();
  const registry = new WorkflowRegistry([wf]);
  await store.createRun({
    tenantId: T,
    id: "r1",
    workflow: "stuck",
    input: null,
    parentRunId: null,
    startedBy: "a",
    now: NOW,
  });
  let t = NOW;
  // Three executions that died (claimed, never finished: their leases just run out).
  for (let i = 1; i <= 3; i++) {
    const [run] = await store.claimRuns("w1", t, t + 1_000, 1);
    assert.equal(run?.stalledExecutions, i);
    t += 2_000;
  }
  const [run] = await store.claimRuns("w2", t, t + 1_000, 1);
  const outcome = await executeRun(run!, {
    store,
    registry,
    owner: "w2",
    contextOptions: { quarantineAfter: 3, now: () => t },
  });
  assert.equal(outcome, "quarantined");
  assert.equal(executions, 0);
  const r = (await store.getRun(T, "r1"))!;
  assert.deepEqual([r.status, r.wakeAt, r.leaseOwner], ["quarantined", null, null]);
  assert.equal(r.error?.name, "RunQuarantined");
  assert.equal(r.error?.type, "quarantined");
  assert.match(r.error?.message ?? "", /last 3 executions in a row/);
  assert.deepEqual(await store.claimRuns("w3", t + 1e9, t + 1e9 + 1_000, 1), []);
});

test("a run that parks between claims is never quarantined", async () => {
  const wf = workflow("sleeper", async (ctx) => {
    for (let i = 0; i < 8; i++) await ctx.sleep(10_000);
    return "done";
  });
  const store = new MemoryRunStore();
  const registry = new WorkflowRegistry([wf]);
  await store.createRun({
    tenantId: T,
    id: "r1",
    workflow: "sleeper",
    input: null,
    parentRunId: null,
    startedBy: "a",
    now: NOW,
  });
  let t = NOW;
  const outcomes: string[] = [];
  for (let i = 0; i < 9; i++) {
    const [run] = await store.claimRuns("w1", t, t + 5_000, 1);
    assert.equal(run?.stalledExecutions, 1);
    outcomes.push(
      await executeRun(run, {
        store,
        registry,
        owner: "w1",
        contextOptions: { quarantineAfter: 1, now: () => t },
      }),
    );
    t += 10_000;
  }
  assert.deepEqual(outcomes, [...Array<string>(8).fill("waiting"), "completed"]);
});
