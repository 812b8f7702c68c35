/**
 * A run that races a signal wait against a 4 s timer, driven on any RunStore:
 * the signal that came first wins, on every replay (test/durable and
 * test/unit/durable wait-timer-races.test.ts).
 */
import assert from "node:assert/strict";
import type { RunStore } from "../../src/engine/durable/run-store-port.ts";
import { workflow } from "../../src/workflow.ts";
import { Clock, Harness } from "./harness.ts";

const T = "t1";

const signalRace = workflow("signal-race", async (ctx) => {
  const winner = await Promise.race([
    ctx.sleep("4s").then(() => "timeout"),
    ctx.waitForSignal<string>("approve").then((v) => `signal ${v}`),
  ]);
  await ctx.sleep("1h"); // replayed again later: the race must replay the same way
  return winner;
});

export async function signalRaceOn(store: RunStore, clock = new Clock()) {
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
