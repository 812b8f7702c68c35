/**
 * Giving a task to someone else from its page: delegate it (its holder), resolve a
 * delegation (the delegate), reassign it (its holder, owner or assigner). The engine
 * checks who may; the page offers each only to those it would allow, and shows the
 * engine's refusal otherwise.
 */
import { useState, type FormEvent } from "react";
import { ApiProblem, engine } from "../../api.ts";
import type { Task } from "../../wire.ts";

interface Props {
  task: Task;
  userId: string;
  /** The task as the engine answered, after a handover. */
  changed: (t: Task) => void;
}

const holderOf = (t: Task) => (t.assignee.kind === "user" ? t.assignee.id : t.claimedBy);

export function TaskHandover({ task, userId, changed }: Props) {
  const [to, setTo] = useState("");
  const [kind, setKind] = useState<"user" | "group">("user");
  const [target, setTarget] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const live = task.status === "open" || task.status === "claimed";
  if (!live) return null;
  const pending = task.delegation === "pending";
  const holds = holderOf(task) === userId;
  const mayReassign = holds || task.owner === userId || task.assignedBy === userId;

  const act = (path: string, body: object) => async (e?: FormEvent<HTMLFormElement>) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      changed(await engine<Task>(`tasks/${task.id}/${path}`, { method: "POST", body }));
      setTo("");
      setTarget("");
    } catch (err) {
      setError(err instanceof ApiProblem ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="handover-heading">
      <h2 id="handover-heading">Hand over</h2>
      {pending && task.assignee.id === userId && (
        <p className="notice">
          {task.owner} delegated this task to you: do the work, then resolve it to give it back.{" "}
          <button type="button" disabled={busy} onClick={() => void act("resolve", {})()}>
            Resolve
          </button>
        </p>
      )}
      {pending && task.owner === userId && (
        <p className="notice">
          Delegated to {task.assignee.id}; it comes back to you once they resolve it.
        </p>
      )}
      {holds && !pending && (
        <form aria-label="Delegate" onSubmit={(e) => void act("delegate", { to: to.trim() })(e)}>
          <div className="field">
            <label htmlFor="delegate-to">Delegate to (user id)</label>
            <input
              id="delegate-to"
              value={to}
              disabled={busy}
              onChange={(e) => setTo(e.target.value)}
            />
          </div>
          <button type="submit" className="secondary" disabled={busy || to.trim() === ""}>
            Delegate
          </button>
        </form>
      )}
      {mayReassign && (
        <form
          aria-label="Reassign"
          onSubmit={(e) => void act("reassign", { assignee: { kind, id: target.trim() } })(e)}
        >
          <div className="field">
            <label htmlFor="reassign-kind">Reassign to a</label>
            <select
              id="reassign-kind"
              value={kind}
              disabled={busy}
              onChange={(e) => setKind(e.target.value === "group" ? "group" : "user")}
            >
              <option value="user">user</option>
              <option value="group">group</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="reassign-id">Reassign to (id)</label>
            <input
              id="reassign-id"
              value={target}
              disabled={busy}
              onChange={(e) => setTarget(e.target.value)}
            />
          </div>
          <button type="submit" className="secondary" disabled={busy || target.trim() === ""}>
            Reassign
          </button>
        </form>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </section>
  );
}
