/**
 * The inbox: my tasks, each of my groups' open tasks, and what I have claimed, one list
 * at a time. The groups are the session's (the directory's groups of the user) and any
 * a task names (the open directory has no groups to tell). New tasks show up through the
 * live "inbox" events.
 */
import { useEffect, useState } from "react";
import { Link, useLocation, useSearchParams } from "react-router";
import { ApiProblem } from "../../api.ts";
import { useLive } from "../../live.ts";
import { RolesHint } from "../../roles-hint.tsx";
import { useSession } from "../../session.tsx";
import { claim, release } from "./claim-actions.ts";
import {
  enginePathFor,
  labelOf,
  listFromSearch,
  sameList,
  searchFor,
  type InboxList,
} from "./inbox-lists.ts";
import { TaskTable } from "./task-table.tsx";
import type { Task } from "../../wire.ts";
import { useCursorList } from "./use-cursor-list.ts";
import { ErrorAlert } from "../../problem-text.tsx";

const PAGE_SIZE = 100;

interface Completed {
  title: string;
  outcome?: string | null;
}

export function InboxPage() {
  const { session } = useSession();
  const userId = session?.userId ?? "";
  const [search] = useSearchParams();
  const list = listFromSearch(search);
  const tasks = useCursorList<Task>(enginePathFor(list, userId), PAGE_SIZE);
  const groups = useKnownGroups(tasks.items, list, session?.groups ?? []);
  const [actionError, setActionError] = useState<string | null>(null);
  useLive("inbox", tasks.reload, list.kind === "group" ? list.group : undefined);
  // The task page leads here after a completion and says which one (its navigation state).
  const completed = (useLocation().state as { completed?: Completed } | null)?.completed;

  const act = (f: (id: string) => Promise<Task>) => (t: Task) => {
    setActionError(null);
    f(t.id)
      .then(() => tasks.reload())
      .catch((e: unknown) => setActionError(e instanceof ApiProblem ? e.message : String(e)));
  };

  const lists: InboxList[] = [
    { kind: "mine" },
    ...groups.map((group) => ({ kind: "group" as const, group })),
    { kind: "claimed" },
  ];
  return (
    <section>
      <h1>Inbox</h1>
      {completed !== undefined && (
        <p role="status" className="notice">
          Completed “{completed.title}”
          {completed.outcome !== undefined && completed.outcome !== null
            ? ` — ${completed.outcome}`
            : ""}
          .
        </p>
      )}
      <RolesHint />
      <nav aria-label="Inbox lists" className="list-tabs">
        <ul>
          {lists.map((l) => (
            <li key={searchFor(l)}>
              <Link
                to={`/inbox${searchFor(l)}`}
                aria-current={sameList(l, list) ? "page" : undefined}
              >
                {labelOf(l)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <p aria-live="polite" className="list-status">
        {tasks.loading && tasks.items.length === 0
          ? "Loading tasks…"
          : `${tasks.items.length} task${tasks.items.length === 1 ? "" : "s"}${tasks.hasMore ? ", more as you scroll" : ""}`}
      </p>
      <ErrorAlert error={tasks.error} />
      <ErrorAlert error={actionError} />
      {tasks.items.length === 0 && !tasks.loading ? (
        <p>No tasks in this list.</p>
      ) : (
        <TaskTable
          caption={labelOf(list)}
          tasks={tasks.items}
          userId={userId}
          hasMore={tasks.hasMore}
          loadMore={tasks.loadMore}
          onClaim={act(claim)}
          onRelease={act(release)}
        />
      )}
    </section>
  );
}

/** Every group seen on a task so far, and the one being shown; sorted, never shrinking. */
function useKnownGroups(tasks: Task[], list: InboxList, mine: string[]): string[] {
  const [groups, setGroups] = useState<string[]>(() => [...mine].sort());
  const shown = list.kind === "group" ? list.group : null;
  useEffect(() => {
    const seen = new Set(groups);
    for (const t of tasks) if (t.assignee.kind === "group") seen.add(t.assignee.id);
    if (shown !== null) seen.add(shown);
    if (seen.size !== groups.length) setGroups([...seen].sort());
  }, [tasks, shown, groups]);
  return groups;
}
