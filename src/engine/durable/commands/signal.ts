/**
 * ctx.waitForSignal / ctx.waitForSignalOutcome: the oldest unconsumed signal
 * of a name, or the timeout. The outcome is tagged because a signal may carry
 * no payload (null): only the tag tells it from a timeout.
 */
import type { SignalEvent, SignalReceivedEvent } from "../../../domain/run-event.ts";
import { CancelledFailure } from "../../../domain/workflow-failure.ts";
import type { Runtime } from "../runtime.ts";
import { cancelCall, cancelWait } from "./cancelled.ts";

const SIGNAL_CALLS = ["signal", "signal_wait"] as const;

type Taken = { found: true; payload: unknown } | { found: false };
const NOT_YET: Taken = { found: false };

export type SignalOutcome = { timedOut: false; payload: unknown } | { timedOut: true };
const TIMED_OUT: SignalOutcome = { timedOut: true };
const received = (payload: unknown): SignalOutcome => ({ timedOut: false, payload });

export async function waitForSignal(
  rt: Runtime,
  seq: number,
  name: string,
  timeoutMs: number | null,
): Promise<SignalOutcome> {
  const ev = rt.cursor.match(seq, SIGNAL_CALLS, name);
  if (ev?.type === "signal") {
    await rt.scheduler.turn(seq);
    return received(ev.data.payload);
  }
  let deadline: number | null = null;
  if (ev === undefined) {
    const got = await rt.scheduler.live(async () => {
      if (rt.cancellation.cancelling) await cancelCall(rt, seq);
      const sig = await takeSignal(rt, seq, null, name);
      if (sig.found) return sig;
      deadline = timeoutMs === null ? null : rt.options.now() + timeoutMs;
      const data = { deadline };
      await rt.writer.append({ seq, type: "signal_wait", name, at: rt.options.now(), data });
      return sig;
    });
    if (got.found) return received(got.payload);
  } else {
    deadline = ev.data.deadline;
    const done = rt.cursor.lastCompletion(seq);
    if (done !== undefined) {
      await rt.scheduler.turn(done.seq);
      if (done.type === "signal") return received(done.data.payload);
      if (done.type === "signal_timeout") return TIMED_OUT;
      if (done.type === "cancelled") throw new CancelledFailure();
    }
  }
  return awaitSignal(rt, seq, name, deadline);
}

/** The live wait after `signal_wait` was recorded: a signal, the timeout, or park. */
async function awaitSignal(
  rt: Runtime,
  seq: number,
  name: string,
  deadline: number | null,
): Promise<SignalOutcome> {
  const got = await rt.scheduler.live(async (): Promise<Taken | "timed out"> => {
    const sig = await takeSignal(rt, null, seq, name);
    if (sig.found) return sig;
    if (deadline !== null && rt.options.now() >= deadline) {
      const at = rt.options.now();
      const data = { ref: seq };
      const timedOut = rt.cursor.completionSeq();
      await rt.writer.append({ seq: timedOut, type: "signal_timeout", name, at, data });
      return "timed out";
    }
    if (rt.cancellation.cancelling) await cancelWait(rt, seq);
    return sig;
  });
  if (got === "timed out") return TIMED_OUT;
  if (got.found) return received(got.payload);
  return rt.scheduler.park(deadline, [name]);
}

/**
 * Consumes the oldest signal `name` if there is one: recorded at `seq` (the
 * call found it at once) or as the completion of the wait at `ref`.
 */
async function takeSignal(
  rt: Runtime,
  seq: number | null,
  ref: number | null,
  name: string,
): Promise<Taken> {
  const sig = await rt.store.peekSignal(rt.run.tenantId, rt.run.id, name);
  rt.halts.check();
  if (sig === undefined) return NOT_YET;
  const at = seq ?? rt.cursor.completionSeq();
  const now = rt.options.now();
  const taken = { payload: sig.payload, signalId: sig.id };
  const ev: SignalEvent | SignalReceivedEvent =
    ref === null
      ? { seq: at, type: "signal", name, at: now, data: taken }
      : { seq: at, type: "signal", name, at: now, data: { ...taken, ref } };
  await rt.writer.consumeSignal(sig.id, ev);
  return { found: true, payload: sig.payload };
}
