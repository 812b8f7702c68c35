/**
 * What a person reads on a task, whichever way it was made (a REST
 * assignment, `ctx.humanTask`, a definition's `userTask`): its title and
 * description, its priority, when it is due and when to look at it again.
 * Stored in the task's own columns, not in vars, so lists can show, sort and
 * filter by them; one check here for all three ways in.
 *
 * Priority is 0–100 with 50 when not given (Camunda's range and default), so
 * a task can be ranked above or below the ones nobody ranked.
 */
import { taskflowError } from "./errors.ts";
import {
  taskExclusionsOf,
  type TaskExclusions,
  type TaskExclusionsRequest,
} from "./task-exclusions.ts";
import { NO_TASK_FORM, taskFormOf, type TaskFormRequest, type TaskFormSpec } from "./task-form.ts";

export const DEFAULT_TASK_PRIORITY = 50;
export const MAX_TASK_PRIORITY = 100;
export const MAX_TASK_TITLE_LENGTH = 200;
export const MAX_TASK_DESCRIPTION_LENGTH = 4_000;

/** As stored and read: times in epoch ms; the form and actions (task-form.ts) with them. */
export interface TaskDetails extends TaskFormSpec {
  /** Who may not complete (nor claim) it: the four-eyes rule (task-exclusions.ts). */
  exclude: TaskExclusions | null;
  title: string | null;
  description: string | null;
  priority: number;
  dueAt: number | null;
  followUpAt: number | null;
}

/**
 * As a caller gives them, and as a stored onAllCompleted keeps them: times as
 * ISO 8601 text with a zone (the REST form; `ctx.humanTask` turns a Date into it).
 */
export interface TaskDetailsRequest extends TaskFormRequest {
  exclude?: TaskExclusionsRequest | undefined;
  title?: string | undefined;
  description?: string | undefined;
  priority?: number | undefined;
  dueAt?: string | undefined;
  followUpAt?: string | undefined;
}

export const NO_TASK_DETAILS: TaskDetails = {
  title: null,
  description: null,
  priority: DEFAULT_TASK_PRIORITY,
  dueAt: null,
  followUpAt: null,
  exclude: null,
  ...NO_TASK_FORM,
};

/**
 * The details a request asks for, checked: `at` names where they sit in the
 * request (`""` for the body itself, `onAllCompleted.` for a join), so the 400
 * names the field.
 */
export function taskDetailsOf(req: TaskDetailsRequest, at = ""): TaskDetails {
  return {
    title: text(req.title, `${at}title`, MAX_TASK_TITLE_LENGTH),
    description: text(req.description, `${at}description`, MAX_TASK_DESCRIPTION_LENGTH),
    priority: priority(req.priority, `${at}priority`),
    dueAt: time(req.dueAt, `${at}dueAt`),
    followUpAt: time(req.followUpAt, `${at}followUpAt`),
    exclude: taskExclusionsOf(req.exclude, `${at}exclude`),
    ...taskFormOf(req, at),
  };
}

/** Due and not finished by `now`. */
export const isOverdue = (t: { dueAt: number | null; status: string }, now: number): boolean =>
  t.dueAt !== null && t.dueAt <= now && (t.status === "open" || t.status === "claimed");

const invalid = (field: string, detail: string) =>
  taskflowError("InvalidTaskDetails", { detail: `${field}: ${detail}` });

function text(v: unknown, field: string, max: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalid(field, "must be a string");
  const s = v.trim();
  if (s === "") return null;
  if (s.length > max) throw invalid(field, `is longer than ${max} characters`);
  return s;
}

function priority(v: unknown, field: string): number {
  if (v === undefined || v === null) return DEFAULT_TASK_PRIORITY;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_TASK_PRIORITY)
    throw invalid(field, `must be a whole number from 0 to ${MAX_TASK_PRIORITY}`);
  return v;
}

/** ISO 8601 with a date, a time and a zone (what `Date.prototype.toISOString` writes). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function time(v: unknown, field: string): number | null {
  if (v === undefined || v === null) return null;
  const ms = typeof v === "string" && ISO_TIME.test(v) ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms))
    throw invalid(field, "must be a date-time with its zone, e.g. 2026-12-31T17:00:00Z");
  return ms;
}
