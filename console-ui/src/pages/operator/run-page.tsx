/**
 * One durable run: its state, input, output or error, and its timeline from the history.
 * While the run is not finished the page follows live events, and the operator may cancel
 * it (after a confirmation) or send it a signal.
 */
import { useCallback } from "react";
import { Link, useParams } from "react-router";
import { engine } from "../../api.ts";
import { ConfirmButton } from "./confirm-button.tsx";
import { FailureText } from "./event-detail.tsx";
import { formatJson, formatTime } from "./format.ts";
import { LiveRefresh } from "./live-refresh.tsx";
import { RunTimeline } from "./run-timeline.tsx";
import type { Run, RunEvent } from "../../wire.ts";
import { isFinal } from "./run-status.ts";
import { SignalForm } from "./signal-form.tsx";
import { StatusBadge } from "./status-badge.tsx";
import { useLoad } from "./use-load.ts";
import { runLink, segment } from "./path-segment.ts";
import { ErrorAlert } from "../../problem-text.tsx";

interface RunWithHistory {
  run: Run;
  events: RunEvent[];
}

/** Pages of history the timeline reads at most: the default history cap (10,000 events). */
const MAX_HISTORY_PAGES = 20;

/** The history is paged (500 events, about 1 MiB a page): the timeline needs all of it. */
async function readHistory(path: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < MAX_HISTORY_PAGES; n++) {
    const query = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
    const page: { items: RunEvent[]; nextCursor: string | null } = await engine(
      `${path}/history${query}`,
    );
    events.push(...page.items);
    cursor = page.nextCursor;
    if (cursor === null) break;
  }
  return events;
}

async function readRun(id: string): Promise<RunWithHistory> {
  const path = `runs/${segment(id)}`;
  const [run, events] = await Promise.all([engine<Run>(path), readHistory(path)]);
  return { run, events };
}

function State({ run }: { run: Run }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <StatusBadge status={run.status} />
        {run.cancelRequested && !isFinal(run.status) && " (cancellation requested)"}
      </dd>
      <dt>Workflow</dt>
      <dd>{run.workflow}</dd>
      <dt>Started by</dt>
      <dd>{run.startedBy ?? "—"}</dd>
      <dt>Created</dt>
      <dd>
        <time dateTime={run.createdAt}>{formatTime(run.createdAt)}</time>
      </dd>
      <dt>Last change</dt>
      <dd>
        <time dateTime={run.updatedAt}>{formatTime(run.updatedAt)}</time>
      </dd>
      {run.parentRunId !== null && (
        <>
          <dt>Parent run</dt>
          <dd>
            <Link to={runLink(run.parentRunId)}>{run.parentRunId}</Link>
          </dd>
        </>
      )}
    </dl>
  );
}

function Values({ run }: { run: Run }) {
  return (
    <div className="values">
      <section aria-labelledby="run-input">
        <h2 id="run-input">Input</h2>
        <pre tabIndex={0}>{formatJson(run.input)}</pre>
      </section>
      {run.status === "completed" && (
        <section aria-labelledby="run-output">
          <h2 id="run-output">Output</h2>
          <pre tabIndex={0}>{formatJson(run.output)}</pre>
        </section>
      )}
      {run.error !== null && (
        <section aria-labelledby="run-error" className="run-error">
          <h2 id="run-error">Error</h2>
          <p>
            <FailureText failure={run.error} />
            {run.error.type !== undefined && ` (${run.error.type})`}
          </p>
          {typeof run.error.stack === "string" && <pre tabIndex={0}>{run.error.stack}</pre>}
        </section>
      )}
    </div>
  );
}

function Actions({ run, reload }: { run: Run; reload: () => void }) {
  const cancel = async () => {
    await engine(`runs/${segment(run.runId)}/cancel`, { method: "POST" });
    reload();
  };
  return (
    <section aria-labelledby="run-actions" className="panel actions">
      <h2 id="run-actions">Actions</h2>
      <ConfirmButton
        label="Cancel run"
        title="Cancel this run?"
        confirmLabel="Cancel the run"
        danger
        disabled={run.cancelRequested}
        onConfirm={cancel}
      >
        <p>
          The run {run.runId} stops at its next call, runs its compensations and ends cancelled.
          This cannot be undone.
        </p>
      </ConfirmButton>
      <SignalForm runId={run.runId} onSent={reload} />
    </section>
  );
}

export function RunPage() {
  const id = useParams().id ?? "";
  const load = useCallback(() => readRun(id), [id]);
  const { data, error, reload } = useLoad(load, id);
  const final = data !== null && isFinal(data.run.status);
  return (
    <section aria-labelledby="run-title" className="run-page">
      <p>
        <Link to="/runs">← All runs</Link>
      </p>
      <h1 id="run-title">Run {id}</h1>
      {!final && <LiveRefresh topic="runs" onChange={reload} />}
      <ErrorAlert error={error} />
      {data === null ? (
        error === null && <p aria-busy="true">Loading…</p>
      ) : (
        <>
          <State run={data.run} />
          {!final && <Actions run={data.run} reload={reload} />}
          <Values run={data.run} />
          <section aria-labelledby="run-timeline">
            <h2 id="run-timeline">Timeline</h2>
            <RunTimeline events={data.events} runFinal={final} />
          </section>
        </>
      )}
    </section>
  );
}
