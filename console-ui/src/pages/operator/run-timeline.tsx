/**
 * The run's timeline: one item per ctx call, in history order, each with its start,
 * how long it took (or that it is still waiting), and every event recorded for it —
 * the failed attempts of a retried step, the end of a wait — with its time. Attempts
 * retried in memory have no event of their own: the step's next event lists them
 * (`data.retried`), and they are shown as lines before it.
 */
import { Fragment } from "react";
import { asFailure, EventDetail, FailureText } from "./event-detail.tsx";
import { between, formatDuration, formatTime } from "./format.ts";
import type { RunEvent } from "../../wire.ts";
import { buildTimeline, isOpen, type TimelineEntry } from "./timeline-model.ts";

const LABELS: Record<string, string> = {
  step: "Step",
  step_retry: "Step",
  timer: "Sleep",
  signal_wait: "Signal wait",
  signal: "Signal",
  task_wait: "Human task",
  child_started: "Child run",
  cancelled: "Cancelled",
  nondeterminism: "Non-determinism",
  patch: "Patch",
  now: "Clock",
  random: "Random",
  uuid: "UUID",
};

/** The highest attempt an event names; runs recorded before `attempt` existed are counted. */
function attempts(entry: TimelineEntry): number {
  const failed = entry.events.filter((e) => e.type === "step_retry").length;
  let n = failed + (entry.events.some((e) => e.type === "step") ? 1 : 0);
  for (const e of entry.events) {
    const a = e.data !== null && "attempt" in e.data ? e.data.attempt : undefined;
    if (typeof a === "number" && a > n) n = a;
  }
  return n;
}

interface RetriedAttempt {
  attempt: number;
  at: number;
  failure: unknown;
}

function retriedOf(e: RunEvent): RetriedAttempt[] {
  const list = e.data !== null && "retried" in e.data ? e.data.retried : undefined;
  if (!Array.isArray(list)) return [];
  // Typed, yet checked: a row's JSON is the runtime's, but a bad entry must not break the page.
  return list.filter((r: unknown): r is RetriedAttempt => {
    return typeof r === "object" && r !== null && typeof (r as RetriedAttempt).attempt === "number";
  });
}

function RetriedLine({ retried }: { retried: RetriedAttempt }) {
  const failure = asFailure(retried.failure);
  const at = typeof retried.at === "number" ? retried.at : null;
  return (
    <li className="retried">
      {at !== null && <time dateTime={new Date(at).toISOString()}>{formatTime(at)}</time>}{" "}
      <span className="event-type">attempt {retried.attempt} failed</span>
      {failure !== null && (
        <>
          : <FailureText failure={failure} />
        </>
      )}
      ; retried in memory
    </li>
  );
}

/** How the entry ended, for its marker: failed, still waiting, or done. */
function stateOf(entry: TimelineEntry, runFinal: boolean): "failed" | "open" | "done" {
  const last = entry.events.at(-1);
  const data = last?.data ?? null;
  const failed = data !== null && "failure" in data && data.failure !== undefined;
  if (failed || entry.type === "nondeterminism") return "failed";
  if (isOpen(entry)) return runFinal ? "done" : "open";
  return "done";
}

function Span({ entry, state }: { entry: TimelineEntry; state: string }) {
  const start = <time dateTime={entry.start}>{formatTime(entry.start)}</time>;
  if (state === "open") return <p className="span">Since {start}; still waiting.</p>;
  if (entry.end === null || entry.end === entry.start) return <p className="span">At {start}.</p>;
  return (
    <p className="span">
      From {start}, took <strong>{formatDuration(between(entry.start, entry.end))}</strong>.
    </p>
  );
}

function EventLine({ event, first }: { event: RunEvent; first: RunEvent }) {
  return (
    <li>
      <span className="seq">#{event.seq}</span>{" "}
      <time dateTime={event.at}>{formatTime(event.at)}</time>{" "}
      <span className="event-type">{event.type}</span>
      {event !== first && (
        <span className="after"> (after {formatDuration(between(first.at, event.at))})</span>
      )}
      : <EventDetail event={event} />
    </li>
  );
}

function Entry({ entry, runFinal }: { entry: TimelineEntry; runFinal: boolean }) {
  const state = stateOf(entry, runFinal);
  const n = attempts(entry);
  const first = entry.events[0];
  return (
    <li className={`entry entry-${state}`}>
      <h3>
        {LABELS[entry.type] ?? entry.type}
        {entry.name !== null && <span className="entry-name"> {entry.name}</span>}
        {n > 1 && <span className="badge"> {n} attempts</span>}
        {state === "failed" && <span className="badge badge-failed">failed</span>}
        {state === "open" && <span className="badge badge-open">waiting</span>}
      </h3>
      <Span entry={entry} state={state} />
      <ol
        className="events"
        aria-label={`events of ${LABELS[entry.type] ?? entry.type} #${entry.seq}`}
      >
        {first !== undefined &&
          entry.events.map((e) => (
            <Fragment key={e.seq}>
              {retriedOf(e).map((r) => (
                <RetriedLine key={`retried-${r.attempt}`} retried={r} />
              ))}
              <EventLine event={e} first={first} />
            </Fragment>
          ))}
      </ol>
    </li>
  );
}

export function RunTimeline({ events, runFinal }: { events: RunEvent[]; runFinal: boolean }) {
  const entries = buildTimeline(events);
  if (entries.length === 0) return <p>No events yet: the run has not recorded a call.</p>;
  return (
    <ol className="timeline">
      {entries.map((entry) => (
        <Entry key={entry.seq} entry={entry} runFinal={runFinal} />
      ))}
    </ol>
  );
}
