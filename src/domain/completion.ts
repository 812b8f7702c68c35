import type { TaskStatus } from "./task.ts";

export interface Completion {
  instanceId: string;
  allCompleted: boolean;
  total: number;
  open: number;
  claimed: number;
  done: number;
  cancelled: number;
}

export type StatusCounts = Record<TaskStatus, number>;

/** A referral is complete when there is at least one task and none is open or claimed. */
export function completionOf(instanceId: string, c: StatusCounts): Completion {
  const total = c.open + c.claimed + c.done + c.cancelled;
  return { instanceId, allCompleted: total > 0 && c.open === 0 && c.claimed === 0, total, ...c };
}
