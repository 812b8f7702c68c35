/**
 * A race of a signal wait against a timer on the memory store: whichever came
 * first wins, and every later replay picks the same winner. (On every backend,
 * and human tasks against timers: test/durable/wait-timer-races.test.ts.)
 */
import { test } from "node:test";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { signalRaceOn } from "../../support/signal-race.ts";

test("race of a signal wait against a timer: the signal that came first wins, on every replay (memory)", async () => {
  await signalRaceOn(new MemoryRunStore());
});
