/**
 * The durable runs, filtered and paged by the engine's cursor (newest first unless the
 * filter asks for oldest, as GET /v1/runs pages them). New runs and status changes arrive by live events (live-refresh.tsx): the
 * page in view is read again, at the same cursor.
 */
import { useCallback, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { engine } from "../../api.ts";
import { formatTime } from "./format.ts";
import { LiveRefresh } from "./live-refresh.tsx";
import { RunFilterForm } from "./run-filter-form.tsx";
import { filtersFrom, paramsFrom, runsQuery, type RunFilters } from "./run-filters.ts";
import type { Page, Run } from "../../wire.ts";
import { StatusBadge } from "./status-badge.tsx";
import { useLoad } from "./use-load.ts";
import { runLink } from "./path-segment.ts";
import { ErrorAlert } from "../../problem-text.tsx";

const PAGE_SIZE = 25;

function RunsTable({ runs }: { runs: Run[] }) {
  return (
    <table className="runs">
      <caption className="visually-hidden">Runs</caption>
      <thead>
        <tr>
          <th scope="col">Run</th>
          <th scope="col">Workflow</th>
          <th scope="col">Status</th>
          <th scope="col">Started by</th>
          <th scope="col">Created</th>
          <th scope="col">Last change</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.runId}>
            <td>
              <Link to={runLink(r.runId)}>{r.runId}</Link>
            </td>
            <td>{r.workflow}</td>
            <td>
              <StatusBadge status={r.status} />
            </td>
            <td>{r.startedBy ?? "—"}</td>
            <td>
              <time dateTime={r.createdAt}>{formatTime(r.createdAt)}</time>
            </td>
            <td>
              <time dateTime={r.updatedAt}>{formatTime(r.updatedAt)}</time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RunsPage() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  // The cursors of the pages before this one, for "Previous page"; the last is this page's.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const cursor = cursors.at(-1) ?? null;
  const query = runsQuery(filters, cursor, PAGE_SIZE);
  const load = useCallback(() => engine<Page<Run>>(query), [query]);
  const { data, error, reload } = useLoad(load, query);

  const apply = (f: RunFilters) => {
    setCursors([null]);
    setParams(paramsFrom(f));
  };
  const next = data?.nextCursor ?? null;

  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <LiveRefresh topic="runs" onChange={reload} />
      <RunFilterForm key={params.toString()} value={filters} onApply={apply} />
      <ErrorAlert error={error} />
      {data === null ? (
        error === null && <p aria-busy="true">Loading…</p>
      ) : data.items.length === 0 ? (
        <p>No runs match these filters.</p>
      ) : (
        <RunsTable runs={data.items} />
      )}
      <nav className="pager" aria-label="Pages of runs">
        <button
          type="button"
          className="secondary"
          disabled={cursors.length === 1}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Previous page
        </button>
        <span>Page {cursors.length}</span>
        <button
          type="button"
          className="secondary"
          disabled={next === null}
          onClick={() => setCursors([...cursors, next])}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
