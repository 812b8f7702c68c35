/**
 * The owner heartbeat on its own, over a ledger double that records beats:
 * it beats at once and then every interval, never two at a time; a failing
 * beat is reported (rate-limited) and the next one still comes; stop waits
 * for a beat in flight and nothing beats after it.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { startOwnerHeartbeat } from "../../../src/engine/definition-cache/owner-heartbeat.ts";

/** Records beats; each takes `ms`; fails while `failing`. */
function recordingLedger(ms: number) {
  const state = { beats: [] as number[], running: 0, maxRunning: 0, failing: false };
  return {
    state,
    ledger: {
      async beat(owner: string) {
        assert.equal(owner, "host/1/boot");
        state.running++;
        state.maxRunning = Math.max(state.maxRunning, state.running);
        await sleep(ms);
        state.running--;
        if (state.failing) throw new Error("database unreachable");
        state.beats.push(Date.now());
      },
    },
  };
}

test("beats at once, then every interval, one at a time; stop waits and ends it", async () => {
  const { state, ledger } = recordingLedger(30);
  const started = Date.now();
  const hb = startOwnerHeartbeat({
    ledger,
    owner: "host/1/boot",
    intervalMs: 40,
    onError: () => {},
  });
  await sleep(5);
  assert.equal(state.running, 1, "the first beat starts at once");
  await sleep(400);
  await hb.stop();
  const count = state.beats.length;
  assert.ok(count >= 2 && count <= 7, `${count} beats in ~400 ms at 30 ms + 40 ms each`);
  assert.ok(state.beats[0]! - started < 200, "the first beat came first");
  assert.equal(state.maxRunning, 1, "never two beats at once");
  assert.equal(state.running, 0, "stop waited for the beat in flight");
  await sleep(150);
  assert.equal(state.beats.length, count, "nothing beats after stop");
  await hb.stop();
});

test("a failing beat is reported once per minute and the heartbeat keeps trying", async () => {
  const { state, ledger } = recordingLedger(1);
  state.failing = true;
  const reports: { message: string; suppressed: number }[] = [];
  const hb = startOwnerHeartbeat({
    ledger,
    owner: "host/1/boot",
    intervalMs: 10,
    onError: (e, suppressed) => void reports.push({ message: e.message, suppressed }),
  });
  await sleep(150);
  assert.deepEqual(reports, [{ message: "database unreachable", suppressed: 0 }]);
  state.failing = false;
  await sleep(100);
  await hb.stop();
  assert.ok(state.beats.length > 0, "beats again once the database is back");
});
