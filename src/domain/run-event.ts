/**
 * A durable run's history, typed: one *call event* per ctx call, at the
 * position (seq) the call took, and *completion events* — `data.ref` = the
 * call's seq — for calls that waited or retried. Replay matches calls to call
 * events by (seq, type, name); completion events never take a call's position.
 *
 * This union is the persisted format (JSON in `run_events.data`) and the REST
 * history's `data`: a change must still read every event already written, so
 * fields are only ever added, as optional (`task_wait.deadline` and
 * `task.result.timedOut` came later and are missing from older runs).
 */
import type { HumanTaskResult, TaskPolicy } from "./human-task-result.ts";
import type { WorkflowFailure } from "./workflow-failure.ts";

interface Recorded<T extends string, N extends string | null, D> {
  seq: number;
  type: T;
  /** The step, timer ("sleep"), signal, task, child or patch name; null where there is none. */
  name: N;
  at: number;
  data: D;
}

/** The seq of the call event a completion event ends (-1: none, see NondeterminismEvent). */
export interface Ref {
  ref: number;
}

/**
 * A failed attempt retried in memory (a backoff under 5 s by default). It has
 * no event of its own: the step's next event lists it, so a timeline shows
 * every attempt without a write per failure.
 */
export interface AttemptFailure {
  attempt: number;
  at: number;
  failure: WorkflowFailure;
}

/** The attempts retried in memory since the step's previous event, oldest first; missing when none. */
interface RetriedInMemory {
  /** At most MAX_RETRIED_LISTED, the latest (`attempt` tells what came before). */
  retried?: AttemptFailure[];
}

/** Kept short: a policy may allow hundreds of quick attempts, and each holds a failure. */
export const MAX_RETRIED_LISTED = 10;

/**
 * A step's final outcome; `result` is absent when the step returned undefined.
 * `attempt`: the attempt that ended it, when not the first (missing in runs
 * recorded before it existed).
 */
export interface StepOutcome extends RetriedInMemory {
  result?: unknown;
  failure?: WorkflowFailure;
  attempt?: number;
}

/** A failed attempt whose retry waits durably (a backoff of 5 s or more by default). */
export interface RetryScheduled extends RetriedInMemory {
  attempt: number;
  retryAt: number;
  failure: WorkflowFailure;
}

export interface SignalTaken {
  payload: unknown;
  signalId: string;
}

export interface TaskWaitData {
  instanceId: string;
  policy: TaskPolicy;
  /** Missing in runs recorded before `timeout` existed; null: no timeout. */
  deadline?: number | null;
}

/** Recorded before `timedOut` existed, a result lacks it (read as false). */
export type RecordedTaskResult = Omit<HumanTaskResult, "timedOut"> & { timedOut?: boolean };

// ---- call events: the position a ctx call took ------------------------------------

export type StepEvent = Recorded<"step", string, StepOutcome>;
export type StepRetryEvent = Recorded<"step_retry", string, RetryScheduled>;
export type TimerEvent = Recorded<"timer", "sleep", { wakeAt: number }>;
export type SignalWaitEvent = Recorded<"signal_wait", string, { deadline: number | null }>;
export type SignalEvent = Recorded<"signal", string, SignalTaken>;
export type NowEvent = Recorded<"now", null, { value: number }>;
export type RandomEvent = Recorded<"random", null, { value: number }>;
export type UuidEvent = Recorded<"uuid", null, { value: string }>;
/** `ctx.patched(id)` on the new code path; the name is the patch id. */
export type PatchEvent = Recorded<"patch", string, null>;
/** Cancellation reached the run at this call, before it did anything. */
export type CancelledEvent = Recorded<"cancelled", null, null>;
export type TaskWaitEvent = Recorded<"task_wait", string, TaskWaitData>;
export type ChildStartedEvent = Recorded<"child_started", string, { childRunId: string }>;

export type CallEvent =
  | StepEvent
  | StepRetryEvent
  | TimerEvent
  | SignalWaitEvent
  | SignalEvent
  | NowEvent
  | RandomEvent
  | UuidEvent
  | PatchEvent
  | CancelledEvent
  | TaskWaitEvent
  | ChildStartedEvent;

// ---- completion events: how a call that waited ended -------------------------------

/** The final outcome of a step that retried durably. */
export type StepSettledEvent = Recorded<"step", string, StepOutcome & Ref>;
/** A further durable retry of that step. */
export type StepRetriedEvent = Recorded<"step_retry", string, RetryScheduled & Ref>;
/** A timer that fired while other waits were pending (a race), so a replay has the same winner. */
export type TimerFiredEvent = Recorded<"timer", "sleep", Ref>;
export type SignalReceivedEvent = Recorded<"signal", string, SignalTaken & Ref>;
export type SignalTimeoutEvent = Recorded<"signal_timeout", string, Ref>;
export type TaskEvent = Recorded<"task", string, Ref & { result: RecordedTaskResult }>;
export type ChildEvent = Recorded<"child", string, StepOutcome & Ref>;
export type WaitCancelledEvent = Recorded<"cancelled", null, Ref>;
/** Replay diverged from history (`ref` -1): the run is blocked until fixed code is deployed. */
export type NondeterminismEvent = Recorded<
  "nondeterminism",
  null,
  { ref: -1; failure: WorkflowFailure }
>;

export type CompletionEvent =
  | StepSettledEvent
  | StepRetriedEvent
  | TimerFiredEvent
  | SignalReceivedEvent
  | SignalTimeoutEvent
  | TaskEvent
  | ChildEvent
  | WaitCancelledEvent
  | NondeterminismEvent;

export type RunEvent = CallEvent | CompletionEvent;
export type RunEventType = RunEvent["type"];

/** A completion event ends an earlier call: its data names that call's seq in `ref`. */
export function isCompletion(e: RunEvent): e is CompletionEvent {
  const d = e.data;
  // typeof: a row's JSON is trusted as written (see storedRunEvent), but a
  // scalar there must not make this throw.
  return d !== null && typeof d === "object" && "ref" in d && typeof d.ref === "number";
}

/**
 * The event a stored row holds. The runtime is the only writer of history, and
 * writes only this union (through its history writer), so a row is read as the
 * type it names: this is the one place that trusts the store's JSON.
 */
export function storedRunEvent(
  seq: number,
  type: string,
  name: string | null,
  at: number,
  data: unknown,
): RunEvent {
  return { seq, type, name, at, data } as RunEvent;
}

/**
 * A history event as the REST API sends it: `at` as an ISO-8601 string; times
 * inside `data` (wakeAt, retryAt, deadline, completedAt) stay epoch milliseconds.
 */
export type RunEventJson = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "at"> & { at: string }
    : never
  : never;
