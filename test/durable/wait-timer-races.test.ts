/**
 * Races of waits against timers (Promise.race of ctx.sleep with a signal or a
 * human task): whichever came first wins, and every later replay picks the same
 * winner.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow } from "../../src/workflow.ts";
import type { RunStore } from "../../src/engine/durable/run-store-port.ts";
import { wakeRunsOnCompletion } from "../../src/engine/durable/human-task-bridge.ts";
import { backendTestOptions, backends, type Backend } from "../support/backends.ts";
import { MemoryRunStore } from "./support/memory-run-store.ts";
import { Clock, Harness } from "./support/harness.ts";
import { inboxOn } from "./support/inbox.ts";

const T = "t1";

const signalRace = workflow("signal-race", async (ctx) => {
  const winner = await Promise.race([
    ctx.sleep("4s").then(() => "timeout"),
    ctx.waitForSignal<string>("approve").then((v) => `signal ${v}`),
  ]);
  await ctx.sleep("1h"); // replayed again later: the race must replay the same way
  return winner;
});

async function signalRaceOn(store: RunStore, clock = new Clock()) {
  const h = new Harness(store, [signalRace], clock);
  await h.start("signal-race", null, "early");
  await h.start("signal-race", null, "late");
  assert.deepEqual(await h.drain(), ["waiting", "waiting"]);
  assert.equal((await store.getRun(T, "early"))!.wakeAt, h.clock.now() + 4_000);
  h.clock.advance(1_000);
  await store.sendSignal(T, "early", { id: "s1", name: "approve", payload: "yes" }, h.clock.now());
  assert.deepEqual(await h.drain(), ["waiting"]);
  h.clock.advance(3_000); // both timers fire: "late" times out, "early" replays its race
  assert.deepEqual(await h.drain(), ["waiting", "waiting"]);
  await store.sendSignal(
    T,
    "late",
    { id: "s2", name: "approve", payload: "too late" },
    h.clock.now(),
  );
  await h.drain();
  h.clock.advance(3_600_000);
  assert.deepEqual((await h.drain()).sort(), ["completed", "completed"]);
  assert.equal((await store.getRun(T, "early"))!.output, "signal yes");
  assert.equal((await store.getRun(T, "late"))!.output, "timeout");
}

test("race of a signal wait against a timer: the signal that came first wins, on every replay (memory)", async () => {
  await signalRaceOn(new MemoryRunStore());
});

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
