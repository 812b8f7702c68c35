/**
 * The inbox's rows in a table, virtualised with @tanstack/react-virtual: only the rows
 * in view (and a few around them) are in the DOM, so a 10,000-task inbox renders as
 * fast as a short one. Scrolling near the end asks for the next page.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { canClaim, canRelease } from "./claim-actions.ts";
import { assigneeText, when } from "./format.ts";
import type { Task } from "../../wire.ts";
import { useTaskTitles } from "./use-task-titles.ts";

/** Matches `.task-table tbody tr` in people.css, so rows need no measuring. */
const ROW_HEIGHT = 44;
/** Rows left below the view when the next page is fetched. */
const PREFETCH_ROWS = 30;

interface Props {
  caption: string;
  tasks: Task[];
  userId: string;
  hasMore: boolean;
  loadMore: () => void;
  onClaim: (t: Task) => void;
  onRelease: (t: Task) => void;
}

export function TaskTable({
  caption,
  tasks,
  userId,
  hasMore,
  loadMore,
  onClaim,
  onRelease,
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const rows = virtualizer.getVirtualItems();
  const nameOf = useTaskTitles(rows.flatMap((r) => tasks[r.index] ?? []));
  const lastShown = rows.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && lastShown >= tasks.length - PREFETCH_ROWS) loadMore();
  }, [hasMore, lastShown, tasks.length, loadMore]);

  const top = rows[0]?.start ?? 0;
  const bottom = virtualizer.getTotalSize() - (rows.at(-1)?.end ?? 0);
  return (
    // Focusable, so keyboard users can scroll it (axe: scrollable-region-focusable).
    <div className="task-scroll" ref={scroller} tabIndex={0} role="region" aria-label={caption}>
      {/* -1: the total is unknown while pages remain unread. */}
      <table className="task-table" aria-rowcount={hasMore ? -1 : tasks.length + 1}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Task</th>
            <th scope="col">State</th>
            <th scope="col">Assignee</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {top > 0 && <Spacer height={top} />}
          {rows.map((r) => {
            const t = tasks[r.index];
            if (t === undefined) return null;
            return (
              <tr key={t.id} aria-rowindex={r.index + 2} className="task-row">
                <td>
                  <Link to={`/tasks/${t.id}`}>{nameOf(t)}</Link>
                </td>
                <td>
                  <span className={`badge status-${t.status}`}>{t.status}</span>
                </td>
                <td>
                  {assigneeText(t.assignee)}
                  {t.claimedBy !== null && ` (claimed by ${t.claimedBy})`}
                </td>
                <td>{when(t.createdAt)}</td>
                <td>
                  <div className="row-actions">
                    {canClaim(t) && (
                      <button type="button" onClick={() => onClaim(t)}>
                        Claim<span className="visually-hidden"> task {t.id}</span>
                      </button>
                    )}
                    {canRelease(t, userId) && (
                      <button type="button" className="secondary" onClick={() => onRelease(t)}>
                        Release<span className="visually-hidden"> task {t.id}</span>
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            );
          })}
          {bottom > 0 && <Spacer height={bottom} />}
        </tbody>
      </table>
    </div>
  );
}

/** Stands in for the rows out of view, so the scrollbar has the list's full height. */
function Spacer({ height }: { height: number }) {
  return (
    <tr aria-hidden="true" className="spacer">
      {/* A CSSOM style (allowed by the CSP), since the height changes with every scroll. */}
      <td colSpan={5} style={{ height }} />
    </tr>
  );
}
