/**
 * What one history event says, in words: an attempt that failed and when it is retried,
 * a step's outcome, a wait and how it ended, who completed a human task, a child run.
 * `data` is read field by field, since its shape differs by event type; a field's name must
 * be one some event's data has (DataKey), so a field the history drops fails tsc here.
 */
import type { ReactNode } from "react";
import { Link } from "react-router";
import { formatDuration, formatJson, formatTime, between } from "./format.ts";
import type { RunEvent, RunFailure } from "../../wire.ts";
import { runLink } from "./path-segment.ts";

type KeysOf<T> = T extends object ? keyof T : never;
type DataKey = KeysOf<NonNullable<RunEvent["data"]>>;

function field(e: RunEvent, k: DataKey): unknown {
  const d: object | null = e.data;
  return d !== null && k in d ? (Reflect.get(d, k) as unknown) : undefined;
}

/** What the page shows of a failure: a recorded one has more (stack, nonRetryable, type). */
export type ShownFailure = Pick<RunFailure, "name" | "message">;

export function asFailure(v: unknown): ShownFailure | null {
  if (typeof v !== "object" || v === null) return null;
  const f = v as Partial<ShownFailure>;
  return typeof f.message === "string" ? { name: f.name ?? "Error", message: f.message } : null;
}

export function FailureText({ failure }: { failure: ShownFailure }) {
  return (
    <span className="failure">
      {failure.name}: {failure.message}
    </span>
  );
}

function Value({ v }: { v: unknown }) {
  return <code className="value">{JSON.stringify(v)}</code>;
}

function outcome(e: RunEvent): ReactNode {
  const failure = asFailure(field(e, "failure"));
  if (failure !== null) {
    return (
      <>
        failed: <FailureText failure={failure} />
      </>
    );
  }
  const result = field(e, "result");
  return result === undefined ? "completed" : <>completed with {<Value v={result} />}</>;
}

function retry(e: RunEvent): ReactNode {
  const failure = asFailure(field(e, "failure"));
  const retryAt = field(e, "retryAt");
  return (
    <>
      attempt {String(field(e, "attempt"))} failed
      {failure !== null && (
        <>
          : <FailureText failure={failure} />
        </>
      )}
      {typeof retryAt === "number" && (
        <>
          ; next attempt at{" "}
          <time dateTime={new Date(retryAt).toISOString()}>{formatTime(retryAt)}</time>
        </>
      )}
    </>
  );
}

function deadline(v: unknown): ReactNode {
  if (typeof v !== "number") return "no timeout";
  return (
    <>
      until <time dateTime={new Date(v).toISOString()}>{formatTime(v)}</time>
    </>
  );
}

interface TaskCompletion {
  completedBy?: unknown;
  completedAt?: unknown;
}

function taskResult(e: RunEvent): ReactNode {
  const r = (field(e, "result") ?? {}) as {
    completedBy?: unknown;
    action?: unknown;
    completions?: TaskCompletion[];
    cancelled?: unknown;
    timedOut?: unknown;
  };
  if (r.timedOut === true) return "timed out; the open tasks were cancelled";
  if (typeof r.completedBy !== "string") return "cancelled before anyone completed it";
  const others = (r.completions ?? []).filter((c) => c.completedBy !== r.completedBy);
  return (
    <>
      completed by <strong className="actor">{r.completedBy}</strong>
      {typeof r.action === "string" && <> ({r.action})</>}
      {others.length > 0 && (
        <> ; also completed by {others.map((c) => String(c.completedBy)).join(", ")}</>
      )}
    </>
  );
}

function childLink(e: RunEvent): ReactNode {
  const id = field(e, "childRunId");
  if (typeof id !== "string") return "child run started";
  return (
    <>
      child run <Link to={runLink(id)}>{id}</Link> started
    </>
  );
}

const DESCRIBE: Record<string, (e: RunEvent) => ReactNode> = {
  step: outcome,
  step_retry: retry,
  timer: (e) =>
    typeof field(e, "wakeAt") === "number" ? (
      <>
        sleeps {formatDuration(between(e.at, field(e, "wakeAt") as number))},{" "}
        {deadline(field(e, "wakeAt"))}
      </>
    ) : (
      "the timer fired"
    ),
  signal_wait: (e) => <>waits for the signal, {deadline(field(e, "deadline"))}</>,
  signal: (e) => (
    <>
      signal received with payload <Value v={field(e, "payload")} />
    </>
  ),
  signal_timeout: () => "the wait for the signal timed out",
  task_wait: (e) => (
    <>
      human task assigned (policy <Value v={field(e, "policy")} />
      ), {deadline(field(e, "deadline"))}
    </>
  ),
  task: taskResult,
  child_started: childLink,
  child: outcome,
  cancelled: () => "cancellation reached the run here",
  nondeterminism: (e) => {
    const f = asFailure(field(e, "failure"));
    return f === null ? "replay diverged" : <FailureText failure={f} />;
  },
  patch: () => "patched code path",
  now: (e) => <>clock read: {formatJson(field(e, "value"))}</>,
  random: (e) => <>random value: {formatJson(field(e, "value"))}</>,
  uuid: (e) => <>uuid: {formatJson(field(e, "value"))}</>,
};

export function EventDetail({ event }: { event: RunEvent }) {
  const describe = DESCRIBE[event.type];
  return <>{describe === undefined ? formatJson(event.data) : describe(event)}</>;
}
