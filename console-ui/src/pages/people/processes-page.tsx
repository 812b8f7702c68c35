/**
 * The processes I started, a page at a time, each linked to its instance page. The
 * state filter is the engine's (`?state=`) and lives in the address.
 */
import { Link, useSearchParams } from "react-router";
import { when } from "./format.ts";
import { branchLabel } from "./process-branches.ts";
import type { Instance } from "../../wire.ts";
import { useCursorList } from "./use-cursor-list.ts";
import { ErrorAlert } from "../../problem-text.tsx";

const PAGE_SIZE = 50;

const STATES = [
  ["", "Any"],
  ["open", "Open"],
  ["notStarted", "Not started"],
  ["closed", "Closed"],
] as const;

export function ProcessesPage() {
  const [search, setSearch] = useSearchParams();
  const state = STATES.find(([v]) => v !== "" && v === search.get("state"))?.[0] ?? "";
  const path = state === "" ? "processes" : `processes?state=${state}`;
  const list = useCursorList<Instance>(path, PAGE_SIZE);
  return (
    <section>
      <h1>My processes</h1>
      <div className="toolbar">
        <label htmlFor="process-state">State</label>
        <select
          id="process-state"
          value={state}
          onChange={(e) => setSearch(e.target.value === "" ? {} : { state: e.target.value })}
        >
          {STATES.map(([v, label]) => (
            <option key={v} value={v}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <ErrorAlert error={list.error} />
      {list.items.length === 0 ? (
        <p aria-live="polite">{list.loading ? "Loading…" : "You have not started any process."}</p>
      ) : (
        <table className="process-table">
          <caption className="visually-hidden">Processes I started</caption>
          <thead>
            <tr>
              <th scope="col">Process</th>
              <th scope="col">State</th>
              <th scope="col">Started</th>
              <th scope="col">Completed</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((p) => (
              <tr key={p.id}>
                <td>
                  <Link to={`/instances/${p.id}`}>{branchLabel(p) ?? p.definitionKey}</Link>
                </td>
                <td>
                  <span className={`badge state-${p.processState ?? "none"}`}>
                    {p.processState ?? "—"}
                  </span>
                </td>
                <td>{when(p.createdAt)}</td>
                <td>{when(p.completedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.hasMore && (
        <button
          type="button"
          className="secondary more"
          disabled={list.loading}
          onClick={list.loadMore}
        >
          Show more
        </button>
      )}
    </section>
  );
}
