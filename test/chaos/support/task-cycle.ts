/**
 * One task cycle over the REST API: a process, a parallel assignment to two
 * users with a join to a third, both completions, then the join's task.
 * Every acknowledged write goes into the ledger.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Reply } from "./chaos-http.ts";
import type { Ledger } from "./ledger.ts";
import { status, type RetryingCaller } from "./retrying-caller.ts";

interface TaskView {
  id: string;
  status: string;
  assignee: { id: string };
}
interface Assigned {
  instanceId: string;
  task: TaskView;
  tasks: TaskView[];
}
interface Completed {
  next: Assigned | null;
}

/**
 * 200 acknowledges; 409 NotOpen is a retry whose first attempt did commit
 * (its answer was lost), so the task is done but nothing was acknowledged.
 */
export async function completeTask(
  caller: RetryingCaller,
  ledger: Ledger,
  taskId: string,
  user: string,
  vars: Record<string, unknown>,
): Promise<Completed | null> {
  const r = await caller.until(
    "POST",
    `/v1/tasks/${taskId}/complete`,
    user,
    { vars },
    status(200, 409),
  );
  if (r?.status !== 200) return null;
  ledger.completions.push({ taskId, by: user, vars });
  return r.body as Completed;
}

/** The first open task in a user's inbox, asked up to 20 times 100 ms apart. */
export async function findOpenTask(caller: RetryingCaller, user: string): Promise<string | null> {
  for (let i = 0; i < 20; i++) {
    const r = await caller.until("GET", `/v1/tasks?user=${user}`, user, undefined, status(200));
    const items = (r?.body as { items?: TaskView[] } | undefined)?.items ?? [];
    const open = items.find((t) => t.status === "open");
    if (open) return open.id;
    if (r === null) return null;
    await sleep(100);
  }
  return null;
}

export async function taskCycle(
  caller: RetryingCaller,
  ledger: Ledger,
  tag: string,
  i: number,
): Promise<void> {
  const user = (role: string) => `${tag}-c${i}-${role}`;
  const starter = user("s");
  const p: Reply | null = await caller.until(
    "POST",
    "/v1/processes",
    starter,
    { processKey: "chaos-cycle", name: `cycle ${i}`, vars: { i } },
    status(201),
  );
  if (!p) return;
  const root = (p.body as { instanceId: string }).instanceId;
  ledger.processes.push(root);
  const a = await caller.until(
    "POST",
    "/v1/assignments",
    starter,
    {
      parentInstanceId: root,
      assignee: { kind: "users", ids: [user("a"), user("b")] },
      onAllCompleted: { assignee: { kind: "user", id: user("j") } },
    },
    status(201),
  );
  if (!a) return;
  const assigned = a.body as Assigned;
  ledger.assignments.push({
    instanceId: assigned.instanceId,
    taskIds: assigned.tasks.map((t) => t.id),
  });
  let join: Assigned | null = null;
  for (const t of assigned.tasks) {
    const done = await completeTask(caller, ledger, t.id, t.assignee.id, { ok: true, i });
    if (done?.next) join = done.next;
  }
  if (join) ledger.joins.push({ instanceId: join.instanceId, taskId: join.task.id });
  // The answer that carried the join may have been lost: then the inbox shows it.
  const joinTask = join?.task.id ?? (await findOpenTask(caller, user("j")));
  if (joinTask) await completeTask(caller, ledger, joinTask, user("j"), { decided: i });
}
