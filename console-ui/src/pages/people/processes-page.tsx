/** The processes I started, newest pages on request, each linked to its instance page. */
import { Link } from "react-router";
import { when } from "./format.ts";
import { branchLabel } from "./process-branches.ts";
import type { Instance } from "./task-types.ts";
import { useCursorList } from "./use-cursor-list.ts";

const PAGE_SIZE = 50;

export function ProcessesPage() {
  const list = useCursorList<Instance>("processes", PAGE_SIZE);
  return (
    <section>
      <h1>My processes</h1>
      {list.error !== null && (
        <p role="alert" className="error">
          {list.error}
        </p>
      )}
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
