/**
 * The audit trail of a task: one append-only event per change of the task —
 * created, claimed, released, completed (with the action and comment chosen),
 * cancelled, commented (and, as the approval model grows, delegated, resolved,
 * reassigned, escalated) — with who made it (null: the engine itself), when, and
 * why. Each change is written in the same transaction as the change itself
 * (adapters/store/migrations/019-task-events.ts), so the trail is the tasks'
 * history, not a log beside it.
 *
 * A use case that changes a task says which change it makes (TaskChange); the
 * store writes it with the task's row.
 */
import type { AssigneeKind } from "./assignee.ts";
import { taskflowError } from "./errors.ts";
import type { TaskStatus } from "./task.ts";

export const TaskEventTypes = [
  "created",
  "claimed",
  "released",
  "completed",
  "cancelled",
  "commented",
  "delegated",
  "resolved",
  "reassigned",
  "escalated",
] as const;
export type TaskEventType = (typeof TaskEventTypes)[number];

/** What an update of a task is, as its use case decides it. */
export interface TaskChange {
  kind: Exclude<TaskEventType, "created" | "commented">;
  /** The actor; null when the engine made the change (a policy met, a timeout). */
  by: string | null;
  at: number;
  reason: string | null;
}

export interface TaskEvent {
  /** Grows with every event of the database: the trail's order. */
  seq: number;
  taskId: string;
  instanceId: string;
  rootInstanceId: string;
  type: TaskEventType;
  actor: string | null;
  at: number;
  reason: string | null;
  /** The task after the change. */
  status: TaskStatus;
  assigneeKind: AssigneeKind;
  assigneeId: string;
  claimedBy: string | null;
  action: string | null;
  /** A completion's comment, or the text of a `commented` event. */
  comment: string | null;
}

export const MAX_COMMENT_LENGTH = 4_000;

/**
 * A comment as people give it — a completion's, a handover's reason, a
 * comment of its own: trimmed, null when empty, refused when not text or
 * longer than MAX_COMMENT_LENGTH (the 400 names `field`).
 */
export function commentText(v: unknown, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string")
    throw taskflowError("InvalidArgument", { detail: `${field}: must be text` });
  const text = v.trim();
  if (text.length > MAX_COMMENT_LENGTH)
    throw taskflowError("InvalidArgument", {
      detail: `${field}: is longer than ${MAX_COMMENT_LENGTH} characters`,
    });
  return text === "" ? null : text;
}
