/**
 * A task's history and comments: its audit trail (GET tasks/{id}/events) as a list —
 * who did what, when, and why — and a box to add a comment, which is an event of the
 * trail too. Reloaded when the task changes (`version`).
 */
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { ApiProblem, engine } from "../../api.ts";
import type { Page, TaskAction, TaskEvent } from "../../wire.ts";
import { assigneeText, when } from "./format.ts";
import { localized } from "./localized.ts";

interface Props {
  taskId: string;
  actions: TaskAction[] | null;
  /** Changes when the task does: the list is read again. */
  version: string;
}

const VERB: Record<TaskEvent["type"], string> = {
  created: "assigned it to",
  claimed: "claimed it",
  released: "released it",
  completed: "completed it",
  cancelled: "cancelled it",
  commented: "commented",
  delegated: "delegated it to",
  resolved: "resolved it",
  reassigned: "reassigned it to",
  escalated: "escalated it to",
};

export function TaskHistory({ taskId, actions, version }: Props) {
  const [events, setEvents] = useState<TaskEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    engine<Page<TaskEvent>>(`tasks/${taskId}/events?limit=200`)
      .then((p) => setEvents(p.items))
      .catch((e: unknown) => setError(e instanceof ApiProblem ? e.message : String(e)));
  }, [taskId]);
  useEffect(load, [load, version]);

  const onSubmit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await engine(`tasks/${taskId}/comments`, { method: "POST", body: { text } });
      setText("");
      load();
    } catch (err) {
      setError(err instanceof ApiProblem ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  const actionLabel = (name: string | null) =>
    name === null ? null : (localized(actions?.find((a) => a.name === name)?.label) ?? name);
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History and comments</h2>
      {events === null ? (
        <p aria-busy="true">Loading the history…</p>
      ) : (
        <ol className="history">
          {events.map((ev) => (
            <li key={ev.id}>
              <time dateTime={ev.at}>{when(ev.at)}</time> <strong>{ev.actor ?? "TaskFlow"}</strong>{" "}
              {VERB[ev.type]}
              {(ev.type === "created" || ev.type === "reassigned" || ev.type === "delegated") &&
                ` ${assigneeText(ev.assignee)}`}
              {ev.type === "completed" && ev.action !== null && ` — ${actionLabel(ev.action)}`}
              {ev.reason !== null && <span className="hint">: {ev.reason}</span>}
              {ev.comment !== null && <blockquote>{ev.comment}</blockquote>}
            </li>
          ))}
        </ol>
      )}
      <form aria-label="New comment" onSubmit={(e) => void onSubmit(e)}>
        <div className="field">
          <label htmlFor="new-comment">Add a comment</label>
          <textarea
            id="new-comment"
            rows={2}
            value={text}
            disabled={busy}
            maxLength={4000}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <button type="submit" className="secondary" disabled={busy || text.trim() === ""}>
          Comment
        </button>
      </form>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
