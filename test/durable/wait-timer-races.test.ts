/**
 * Races of waits against timers (Promise.race of ctx.sleep with a signal or a
 * human task): whichever came first wins, and every later replay picks the same
 * winner. On every backend; the signal race on the memory store:
 * test/unit/durable/wait-timer-races.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import { wakeRunsOnCompletion } from "../../src/engine/durable/human-task-bridge.ts";
import { backendTestOptions, backends, type Backend } from "../support/backends.ts";
import { Clock, Harness } from "../support/harness.ts";
import { signalRaceOn } from "../support/signal-race.ts";
import { inboxOn } from "./support/inbox.ts";

const T = "t1";

for (const b of backends) {
  test(
    `race of a signal wait against a timer: the signal that came first wins, on every replay (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const env = await inboxOn(b);
      try {
        await signalRaceOn(env.runs, new Clock(Date.now()));
      } finally {
        await env.close();
      }
    },
  );
}

const taskRace = workflow("task-race", async (ctx) => {
  const winner = await Promise.race([
    ctx.sleep("4s").then(() => "timeout"),
    ctx
      .humanTask("approve", { assignee: { kind: "user", id: "bob" } })
      .then((r) => `${r.action} by ${r.completedBy}`),
  ]);
  await ctx.sleep("1h");
  return winner;
});

/** A taskRace run r1 started on `b`, and bob's approval of its task through the inbox. */
async function taskRaceOn(b: Backend) {
  const env = await inboxOn(b);
  const h = new Harness(env.runs, [taskRace], new Clock(Date.now()));
  h.contextOptions = { humanTasks: env.bridge };
  const inbox = wakeRunsOnCompletion(env.engine, env.store, env.runs);
  await h.start("task-race", null, "r1").catch(async (e: unknown) => {
    await env.close();
    throw e;
  });
  const approve = async () => {
    const [task] = (await inbox.userInbox({ tenantId: T }, "bob", {})).items;
    await inbox.complete({ tenantId: T, actorId: "bob" }, task!.id, {
      vars: { action: "approve" },
    });
  };
  return { env, h, approve };
}

for (const b of backends) {
  test(
    `race of a human task against a timer: the approval before the timer wins, on every replay (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const { env, h, approve } = await taskRaceOn(b);
      try {
        assert.deepEqual(await h.drain(), ["waiting"]);
        const r = (await env.runs.getRun(T, "r1"))!;
        assert.equal(r.wakeAt, h.clock.now() + 4_000, "wakes for the timer, not only the re-check");
        h.clock.advance(1_000);
        await approve();
        assert.deepEqual(await h.drain(), ["waiting"]);
        h.clock.advance(3_000); // the losing timer fires: a replay that must not change the winner
        assert.deepEqual(await h.drain(), ["waiting"]);
        h.clock.advance(3_600_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.output, "approve by bob");
      } finally {
        await env.close();
      }
    },
  );
}

for (const b of backends) {
  test(
    `race of a human task against a timer: the timer first wins, a later approval changes nothing (${b.name})`,
    await backendTestOptions(b),
    async () => {
      const { env, h, approve } = await taskRaceOn(b);
      try {
        await h.drain();
        h.clock.advance(4_000);
        assert.deepEqual(await h.drain(), ["waiting"]);
        await approve();
        await h.drain();
        h.clock.advance(3_600_000);
        assert.deepEqual(await h.drain(), ["completed"]);
        assert.equal((await env.runs.getRun(T, "r1"))!.output, "timeout");
      } finally {
        await env.close();
      }
    },
  );
}
