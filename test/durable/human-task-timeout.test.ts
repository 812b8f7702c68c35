/** ctx.humanTask with a timeout: resolves with timedOut and cancels the open inbox tasks. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { Clock, Harness } from "../support/harness.ts";
import { inboxOn } from "./support/inbox.ts";

const T = "t1";

for (const b of backends) {
  test(
    `ctx.humanTask timeout: resolves with timedOut and cancels the open tasks (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const wf = workflow("timed", async (ctx) => {
        const r = await ctx.humanTask("approve", {
          assignee: { kind: "user", id: "bob" },
          timeout: "10s",
        });
        return { timedOut: r.timedOut, cancelled: r.cancelled, by: r.completedBy };
      });
      const env = await inboxOn(b);
      try {
        const h = new Harness(env.runs, [wf], new Clock(Date.now()));
        h.contextOptions = { humanTasks: env.bridge };
        await h.start("timed", null, "r1");
        assert.deepEqual(await h.drain(), ["waiting"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.wakeAt, h.clock.now() + 10_000);
        assert.equal((await env.engine.userInbox({ tenantId: T }, "bob", {})).items.length, 1);
        h.clock.advance(10_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.deepEqual((await env.runs.getRun(T, "r1"))!.output, {
          timedOut: true,
          cancelled: true,
          by: null,
        });
        assert.equal((await env.engine.userInbox({ tenantId: T }, "bob", {})).items.length, 0);
      } finally {
        await env.close();
      }
    },
  );
}
