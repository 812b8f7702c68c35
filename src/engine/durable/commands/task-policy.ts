/** Deciding a ctx.humanTask from its referral's tasks. */
import type {
  HumanTaskResult,
  TaskCompletion,
  TaskPolicy,
} from "../../../domain/human-task-result.ts";
import type { Task } from "../../../domain/task.ts";

/** The policy's verdict on a referral's tasks, or null while it is still open. */
export function evaluatePolicy(
  instanceId: string,
  tasks: readonly Task[],
  policy: TaskPolicy,
): HumanTaskResult | null {
  const done = doneInOrder(tasks);
  const need =
    policy === "all"
      ? tasks.length
      : policy === "any"
        ? 1
        : Math.min(Math.max(1, policy.atLeast), tasks.length);
  const met = tasks.length > 0 && done.length >= need;
  if (!met && hasUnfinished(tasks)) return null;
  const deciding = met ? done[need - 1] : done[done.length - 1];
  return {
    instanceId,
    completedBy: deciding?.completedBy ?? null,
    vars: deciding?.vars ?? null,
    action: deciding === undefined ? null : actionOf(deciding),
    comment: deciding?.comment ?? null,
    completions: done.map(completionOf),
    cancelled: !met,
    timedOut: false,
  };
}

/** The result of a humanTask whose timeout passed first: whatever was done, timedOut. */
export function timedOutResult(instanceId: string, tasks: readonly Task[]): HumanTaskResult {
  return {
    instanceId,
    completedBy: null,
    vars: null,
    action: null,
    completions: doneInOrder(tasks).map(completionOf),
    cancelled: true,
    timedOut: true,
  };
}

export function hasUnfinished(tasks: readonly Task[]): boolean {
  return tasks.some((t) => t.status === "open" || t.status === "claimed");
}

function doneInOrder(tasks: readonly Task[]): Task[] {
  return tasks
    .filter((t) => t.status === "done")
    .sort((a, b) => (a.completedAt ?? 0) - (b.completedAt ?? 0));
}

function completionOf(t: Task): TaskCompletion {
  return {
    taskId: t.id,
    completedBy: t.completedBy ?? "",
    vars: t.vars,
    action: actionOf(t),
    comment: t.comment,
    completedAt: t.completedAt ?? 0,
  };
}

/** The recorded action; a completion before 018 kept it only in its vars. */
function actionOf(t: Task): string | null {
  if (t.action !== null) return t.action;
  const inVars = t.vars?.["action"];
  return typeof inVars === "string" ? inVars : null;
}
