/**
 * The task lists GET /v1/tasks offers (`status`): an inbox and the history
 * around it. `completed` lists tasks with status `done`.
 */
export const TaskListStatuses = ["open", "claimed", "completed", "cancelled", "all"] as const;
export type TaskListStatus = (typeof TaskListStatuses)[number];

/** Completed and cancelled lists page newest first by completion time; the others in id order. */
export const isNewestFirst = (s: TaskListStatus) => s === "completed" || s === "cancelled";
