/**
 * A TaskFlow task as the pages show it: its title and which step of the
 * termination it is (the definition's state name), both written by the
 * definition into the task's referral, read with one GET per task.
 */
import type { ActingClient, Task } from "taskflow/client";
import type { Person } from "./people.ts";

/** The definition's user-task states (examples/definitions/employee-termination). */
export const STEPS = ["it", "finance", "handover", "close"] as const;
export type Step = (typeof STEPS)[number];

export interface TaskView {
  id: string;
  step: Step;
  title: string;
  status: Task["status"];
  assignee: string;
  claimedBy: string | null;
}

const isStep = (s: unknown): s is Step => STEPS.includes(s as Step);

export async function viewOf(tf: ActingClient, task: Task): Promise<TaskView | undefined> {
  const referral = await tf.getInstance(task.instanceId);
  const { state, title } = referral.vars;
  if (!isStep(state)) return undefined; // not a termination task
  return {
    id: task.id,
    step: state,
    title: typeof title === "string" ? title : state,
    status: task.status,
    assignee: `${task.assignee.kind} ${task.assignee.id}`,
    claimedBy: task.claimedBy,
  };
}

/**
 * Whether the person may see the task: it is theirs, their group's, or one they
 * claimed or completed. TaskFlow answers any task of the tenant by id; within a
 * company the backend decides who sees what.
 */
export function mayView(person: Person, task: Task, groups: readonly string[]): boolean {
  const { kind, id } = task.assignee;
  if (kind === "user" && id === person.id) return true;
  if (kind === "group" && groups.includes(id)) return true;
  return task.claimedBy === person.id || task.completedBy === person.id;
}
