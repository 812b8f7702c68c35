/**
 * One task and the form of its step. The fields are the definition's form for
 * that step (TaskFlow checks them again on completion and refuses a mismatch).
 */
import { useState, type FormEvent } from "react";
import { api, messageOf } from "./api.ts";
import { StepFields, varsOf, type Fields } from "./step-fields.tsx";
import type { TaskView } from "./task-view.ts";

export function TaskForm({ task, onDone }: { task: TaskView; onDone: () => void }) {
  const [fields, setFields] = useState<Fields>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = `task-${task.id}`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api(`/tasks/${task.id}/complete`, "POST", { vars: varsOf(task.step, fields) });
      onDone();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="task" aria-labelledby={titleId} data-task={task.id}>
      <h3 id={titleId}>{task.title}</h3>
      <p className="meta">For {task.assignee}</p>
      <form onSubmit={(e) => void submit(e)} aria-labelledby={titleId} className="grid">
        <StepFields step={task.step} id={task.id} fields={fields} onChange={setFields} />
        <button type="submit" disabled={busy}>
          {task.step === "close" ? "Close the file" : "Complete"}
        </button>
      </form>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </article>
  );
}
