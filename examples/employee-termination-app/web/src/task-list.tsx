/** The signed-in person's open tasks (their own and their team's), each with its form. */
import { api } from "./api.ts";
import { TaskForm } from "./task-form.tsx";
import type { TaskView } from "./task-view.ts";
import { usePolled } from "./use-polled.ts";

const readTasks = () => api<{ items: TaskView[] }>("/tasks");

export function TaskList() {
  const { data, error, reload } = usePolled(readTasks);
  const items = data?.items ?? [];
  return (
    <section aria-labelledby="tasks-title">
      <h2 id="tasks-title">My tasks</h2>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {data !== undefined && items.length === 0 && <p>No open tasks.</p>}
      {items.map((t) => (
        <TaskForm key={t.id} task={t} onDone={reload} />
      ))}
    </section>
  );
}
