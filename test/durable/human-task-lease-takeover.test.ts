/**
 * ctx.humanTask is idempotent across a lease takeover: two executions that
 * both reach AssignTo create one inbox task, and both record the same one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { executeRun } from "../../src/engine/durable/executor.ts";
import type { Run } from "../../src/domain/run.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { Clock } from "../support/harness.ts";
import { inboxOn } from "./support/inbox.ts";

const T = "t1";

for (const b of backends) {
  test(
    `a lease takeover while creating a human task does not duplicate the inbox task (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const wf = workflow("approve", async (ctx) => {
        const r = await ctx.humanTask("ok", { assignee: { kind: "user", id: "bob" } });
        return r.completedBy;
      });
      // Both executions reach AssignTo before either has created anything.
      let arrived = 0;
      let open!: () => void;
      const both = new Promise<void>((r) => (open = r));
      const env = await inboxOn(
        b,
        (e) =>
          new Proxy(e, {
            get(target, prop, receiver) {
              const v = Reflect.get(target, prop, receiver) as unknown;
              if (prop !== "assign" || typeof v !== "function") return v;
              return async (...args: unknown[]) => {
                if (++arrived === 2) open();
                await both;
                return (v as (...a: unknown[]) => unknown).apply(target, args);
              };
            },
          }),
      );
      try {
        const clock = new Clock(Date.now());
        await env.runs.createRun({
          tenantId: T,
          id: "r1",
          workflow: "approve",
          input: null,
          parentRunId: null,
          startedBy: "alice",
          now: clock.now(),
        });
        const registry = new WorkflowRegistry([wf]);
        const exec = (run: Run, owner: string) =>
          executeRun(run, {
            store: env.runs,
            registry,
            owner,
            contextOptions: { now: clock.now, inMemoryWaitMs: 0, humanTasks: env.bridge },
          });
        const [first] = await env.runs.claimRuns("w1", clock.now(), clock.now() + 5_000, 1);
        clock.advance(6_000); // w1's lease expires: w2 takes the run over while w1 still works
        const [second] = await env.runs.claimRuns("w2", clock.now(), clock.now() + 5_000, 1);
        const outcomes = await Promise.all([exec(first!, "w1"), exec(second!, "w2")]);
        assert.deepEqual(outcomes.sort(), ["lost", "waiting"]);
        const bobs = await env.engine.userInbox({ tenantId: T }, "bob", {});
        assert.equal(bobs.items.length, 1, "one inbox task");
        const hist = await env.runs.loadHistory(T, "r1", 0);
        const wait = hist.find((e) => e.type === "task_wait")!;
        assert.equal((wait.data as { instanceId: string }).instanceId, bobs.items[0]!.instanceId);
      } finally {
        await env.close();
      }
    },
  );
}
