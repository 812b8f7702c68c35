/** ctx.sleep and ctx.sleepUntil, and the wait until a time that durable retries share. */
import { CancelledFailure } from "../../../domain/workflow-failure.ts";
import type { Runtime } from "../runtime.ts";
import { cancelCall, cancelWait } from "./cancelled.ts";

const TIMER = ["timer"] as const;
export const NO_SIGNALS: readonly string[] = [];

/** A durable timer at `seq`; `wakeAtNow` gives its time when it is first made. */
export async function runTimer(rt: Runtime, seq: number, wakeAtNow: () => number): Promise<void> {
  const ev = rt.cursor.match(seq, TIMER, "sleep");
  let wakeAt: number;
  if (ev === undefined) {
    if (rt.cancellation.cancelling) await cancelCall(rt, seq);
    wakeAt = wakeAtNow();
    const at = rt.options.now();
    await rt.writer.append({ seq, type: "timer", name: "sleep", at, data: { wakeAt } });
  } else {
    // Fired (or cancelled) while racing other waits: delivered in history order.
    const done = rt.cursor.lastCompletion(seq);
    if (done !== undefined) {
      await rt.scheduler.turn(done.seq);
      if (done.type === "cancelled") throw new CancelledFailure();
      return;
    }
    wakeAt = ev.data.wakeAt;
  }
  await waitUntil(rt, seq, wakeAt, NO_SIGNALS, true);
}

/**
 * Returns once now >= wakeAt; parks when that is far; throws when cancelled.
 * `record`: a timer that fires while other calls are in flight records a
 * completion ("timer" with ref), so a race with it replays the same way.
 */
export async function waitUntil(
  rt: Runtime,
  seq: number,
  wakeAt: number,
  signalNames: readonly string[],
  record = false,
): Promise<void> {
  for (;;) {
    const left = await rt.scheduler.live(() => timeLeft(rt, seq, wakeAt, record));
    if (left <= 0) return;
    if (left > rt.options.inMemoryWaitMs) return rt.scheduler.park(wakeAt, signalNames);
    await rt.cancellation.sleep(left);
    rt.halts.check();
  }
}

async function timeLeft(
  rt: Runtime,
  seq: number,
  wakeAt: number,
  record: boolean,
): Promise<number> {
  if (rt.cursor.lastCompletion(seq)?.type === "cancelled") throw new CancelledFailure();
  const ms = wakeAt - rt.options.now();
  if (ms <= 0) {
    if (record && rt.scheduler.inFlight > 1) {
      const at = rt.options.now();
      const fired = rt.cursor.completionSeq();
      await rt.writer.append({ seq: fired, type: "timer", name: "sleep", at, data: { ref: seq } });
    }
    return 0;
  }
  if (rt.cancellation.cancelling) await cancelWait(rt, seq);
  return ms;
}
