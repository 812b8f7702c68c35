/**
 * Claim and release, and what a row or a task page may offer: a task is claimed
 * while open, and released only by its claimer (the engine checks both again).
 */
import { engine } from "../../api.ts";
import type { Task } from "../../wire.ts";

export const canClaim = (t: Task): boolean => t.status === "open";
export const canRelease = (t: Task, userId: string): boolean =>
  t.status === "claimed" && t.claimedBy === userId;
/** An open group task must be claimed before it can be completed. */
export const needsClaim = (t: Task): boolean => t.status === "open" && t.assignee.kind === "group";

export function claim(taskId: string): Promise<Task> {
  return engine<Task>(`tasks/${taskId}/claim`, { method: "POST" });
}

export function release(taskId: string): Promise<Task> {
  return engine<Task>(`tasks/${taskId}/release`, { method: "POST" });
}
