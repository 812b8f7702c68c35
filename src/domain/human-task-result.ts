/**
 * What `ctx.humanTask` resolves with, and the policy that decides it. Domain
 * data because the run's history records it (the `task` event) and the REST
 * history and the client read it back.
 */
import type { Vars } from "./vars.ts";

/** all: every task done; any: the first one; atLeast: n of them. */
export type TaskPolicy = "all" | "any" | { atLeast: number };

export interface TaskCompletion {
  taskId: string;
  completedBy: string;
  vars: Vars | null;
  /** The named action chosen (older records: none). */
  action?: string | null;
  comment?: string | null;
  completedAt: number;
}

export interface HumanTaskResult {
  /** The referral instance holding the tasks. */
  instanceId: string;
  /** The actor whose completion met the policy (null when the tasks were cancelled instead). */
  completedBy: string | null;
  /** That completion's vars. */
  vars: Vars | null;
  /** The action the deciding completion chose (e.g. "approve" / "reject"): one of the
   * task's actions, or `vars.action` when the task named none. */
  action: string | null;
  /** The deciding completion's comment (older records: absent). */
  comment?: string | null;
  /** Every completion, in time order. */
  completions: TaskCompletion[];
  /** True when the policy can no longer be met (tasks cancelled) or the call timed out. */
  cancelled: boolean;
  /** True when `timeout` passed before the policy was met (the open tasks were cancelled). */
  timedOut: boolean;
}
