/**
 * ctx.step: runs a function at least once and records its outcome; replay
 * returns the record. Failed attempts are retried by the retry policy: short
 * backoffs are slept in memory, longer ones are recorded (`step_retry`) and
 * waited like a timer, so a crash in between resumes at the right attempt.
 * The attempts retried in memory are listed in the step's next event (its
 * outcome, or a durable retry), so the history shows them without a write each.
 */
import { toMs } from "../../../domain/duration.ts";
import {
  MAX_RETRIED_LISTED,
  type AttemptFailure,
  type RetryScheduled,
  type StepEvent,
  type StepOutcome,
  type StepRetriedEvent,
  type StepRetryEvent,
  type StepSettledEvent,
} from "../../../domain/run-event.ts";
import { CancelledFailure, StepFailedError, toFailure } from "../../../domain/workflow-failure.ts";
import { toJson } from "../json-form.ts";
import { resolveRetryPolicy, retryDelay, type ResolvedRetryPolicy } from "../retry-policy.ts";
import { checkHeld } from "../lease-term.ts";
import type { Runtime } from "../runtime.ts";
import type { StepFn, StepOptions } from "../types.ts";
import { cancelCall, cancelWait } from "./cancelled.ts";
import { runAttempt } from "./step-attempt.ts";
import { NO_SIGNALS, waitUntil } from "./timer.ts";

const STEP_CALLS = ["step", "step_retry"] as const;

export async function runStep(
  rt: Runtime,
  seq: number,
  name: string,
  fn: StepFn<unknown>,
  options: StepOptions,
): Promise<unknown> {
  const ev = rt.cursor.match(seq, STEP_CALLS, name);
  let attempt = 1;
  /** Whether the next event takes the call's position (no event recorded for it yet). */
  let isCall = true;
  if (ev !== undefined) {
    const last = ev.type === "step" ? ev : (rt.cursor.lastCompletion(seq) ?? ev);
    if (last.type === "step") return stepResult(name, last.data);
    // Only a cancellation or a further retry completes a step_retry.
    if (last.type !== "step_retry") throw new CancelledFailure();
    attempt = last.data.attempt + 1;
    isCall = false;
    await waitUntil(rt, seq, last.data.retryAt, NO_SIGNALS);
  } else if (rt.cancellation.cancelling) {
    await cancelCall(rt, seq);
  }

  const policy = resolveRetryPolicy(rt.workflowOptions.retry, options.retry);
  const timeoutMs = options.timeout === undefined ? null : toMs(options.timeout);
  const idempotencyKey = `${rt.run.id}:${seq}`;
  const flushed = rt.writer.flushIfPending();
  if (flushed !== undefined) await flushed;
  const onCancel = rt.cancellation.abortOnCancel;
  const retried: AttemptFailure[] = [];
  for (; ; attempt++) {
    let result: unknown;
    // The function's effect is not fenced: it must not start once the lease ran out (a
    // node resumed after a freeze; lease-term.ts). A clock compare, no await.
    checkHeld(rt.halts, rt.term);
    try {
      result = await runAttempt(fn, idempotencyKey, attempt, timeoutMs, onCancel);
    } catch (e) {
      const tried = { attempt, retried };
      isCall = await afterFailure(rt, seq, isCall, name, tried, e, policy, options);
      continue;
    }
    rt.halts.check();
    const value = toJson(result);
    const outcome = { result: value, ...attemptsOf(attempt, retried) };
    rt.writer.defer(stepEvent(rt, seq, isCall, name, outcome));
    return value;
  }
}

/**
 * A failed attempt: throws StepFailedError when it was the last, else waits
 * out the backoff (in memory, or recorded as `step_retry` and waited like a
 * timer) and returns whether the next event still takes the call's position.
 */
async function afterFailure(
  rt: Runtime,
  seq: number,
  isCall: boolean,
  name: string,
  tried: { attempt: number; retried: AttemptFailure[] },
  e: unknown,
  policy: ResolvedRetryPolicy,
  options: StepOptions,
): Promise<boolean> {
  const { attempt, retried } = tried;
  rt.halts.check();
  // Cancelled while running and the function gave up: the step ends cancelled, no retry.
  if (rt.cancellation.cancelling) await (isCall ? cancelCall(rt, seq) : cancelWait(rt, seq));
  const failure = toFailure(e);
  const delay = retryDelay(policy, attempt, e, failure, options.nonRetryable);
  if (delay === null) {
    const outcome = { failure, ...attemptsOf(attempt, retried) };
    await rt.writer.append(stepEvent(rt, seq, isCall, name, outcome));
    throw new StepFailedError(name, failure);
  }
  if (delay < rt.options.inMemoryBackoffMs) {
    retried.push({ attempt, at: rt.options.now(), failure });
    if (retried.length > MAX_RETRIED_LISTED) retried.shift();
    await rt.cancellation.sleep(delay);
    rt.halts.check();
    return isCall;
  }
  const retryAt = rt.options.now() + delay;
  const scheduled = { attempt, retryAt, failure, ...listed(retried) };
  await rt.writer.append(retryEvent(rt, seq, isCall, name, scheduled));
  // Listed in this event: the next one lists only what fails after it.
  retried.length = 0;
  await waitUntil(rt, seq, retryAt, NO_SIGNALS);
  return false;
}

/** The outcome's attempt fields: left out for a first attempt with nothing retried, as before. */
function attemptsOf(attempt: number, retried: readonly AttemptFailure[]) {
  return { ...(attempt > 1 ? { attempt } : {}), ...listed(retried) };
}

/** The attempts retried in memory, as an event lists them: left out when none. */
const listed = (retried: readonly AttemptFailure[]) =>
  retried.length > 0 ? { retried: [...retried] } : {};

/** The step's outcome: at the call's position, or as the completion of a durable retry. */
function stepEvent(
  rt: Runtime,
  seq: number,
  isCall: boolean,
  name: string,
  outcome: StepOutcome,
): StepEvent | StepSettledEvent {
  if (isCall) return { seq, type: "step", name, at: rt.options.now(), data: outcome };
  const at = rt.cursor.completionSeq();
  return { seq: at, type: "step", name, at: rt.options.now(), data: { ...outcome, ref: seq } };
}

function retryEvent(
  rt: Runtime,
  seq: number,
  isCall: boolean,
  name: string,
  retry: RetryScheduled,
): StepRetryEvent | StepRetriedEvent {
  if (isCall) return { seq, type: "step_retry", name, at: rt.options.now(), data: retry };
  const at = rt.cursor.completionSeq();
  return { seq: at, type: "step_retry", name, at: rt.options.now(), data: { ...retry, ref: seq } };
}

function stepResult(name: string, outcome: StepOutcome): unknown {
  if (outcome.failure !== undefined) throw new StepFailedError(name, outcome.failure);
  return outcome.result;
}
