/**
 * The JSON of the REST API v1 (docs/api.md), as the client sends and
 * receives it. These are wire types, written here on purpose rather than
 * imported from the engine: the client is for host backends and depends on
 * nothing but the HTTP contract (and the domain's error catalogue and history
 * event shapes, below).
 *
 * Times are ISO-8601 strings in UTC (`"2025-01-15T09:30:00.000Z"`), exactly as
 * on the wire; the client does not turn them into `Date`s. Every listed field of
 * a response is always present, `null` when unset.
 */

import { ErrorCodes } from "../domain/errors.ts";
import type { RunEventJson } from "../domain/run-event.ts";
import type { ProblemReason } from "./problem-reasons.ts";

/** An ISO-8601 time in UTC, as sent by the server. `new Date(t)` parses it. */
export type IsoTime = string;

/** Variables: any JSON object; its content belongs to the host application. */
export type Vars = Record<string, unknown>;

// ── errors ────────────────────────────────────────────────────────────────────

/**
 * The engine's error catalogue (docs/api.md, "Errors"), from the pure domain layer — the one
 * thing the client takes from the engine's source, so the two cannot drift.
 */
export { ErrorCodes };

/**
 * A problem `code`: the catalogue, plus `UnsupportedMediaType` (415), `Internal`
 * (500) and `Unavailable` (503), which only the server produces. A newer server
 * may add codes, so any string is accepted at run time.
 */
export type ProblemCode =
  | (typeof ErrorCodes)[number]
  | "UnsupportedMediaType"
  | "MethodNotAllowed"
  | "Internal"
  | "Unavailable"
  // `string & Record<never, never>` rather than `string`: editors still offer the known codes.
  | (string & Record<never, never>);

/** Options of every call that acts (a POST). */
export interface WriteOptions {
  /**
   * Sent as `Idempotency-Key` (1–255 visible ASCII characters, e.g. a UUID):
   * the server answers a retry with the same key and request with the first
   * answer; the same key with another request is 422 `Unprocessable`, and while
   * the first still runs 409 `InProgress`.
   */
  idempotencyKey?: string | undefined;
}

/** An `application/problem+json` body (RFC 9457). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  /** The situation, finer than `code` (src/client/problem-reasons.ts); absent from an older server. */
  reason?: ProblemReason;
}

// ── paging ────────────────────────────────────────────────────────────────────

/** One page of a list. `nextCursor` is opaque, `null` on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface PageOptions {
  /** Page size, 1–500 (server default 50). */
  limit?: number;
  /** The `nextCursor` of the previous page, unchanged. */
  cursor?: string;
}

// ── human tasks ───────────────────────────────────────────────────────────────

/** Who gets the task(s): one user, one group, or one user task per id of `ids`. */
export type AssigneeRequest =
  { kind: "user"; id: string } | { kind: "group"; id: string } | { kind: "users"; ids: string[] };

/** The assignee on a task: a `users` request made one `user` task per id. */
export interface TaskAssignee {
  kind: "user" | "group";
  id: string;
}

/** An assignment attached to the same root: `onAllCompleted` (the join) and `next`. */
export interface NextAssignment {
  definitionKey?: string;
  assignee: AssigneeRequest;
  vars?: Vars;
  onAllCompleted?: NextAssignment;
}

/** The body of `POST /v1/assignments`: give `parentInstanceId` or `definitionKey`. */
export interface AssignmentRequest extends NextAssignment {
  parentInstanceId?: string;
}

export interface StartProcessRequest {
  processKey: string;
  name?: string;
  vars?: Vars;
}

export interface StartedProcess {
  definitionKey: string;
  instanceId: string;
}

export type ProcessState = "notStarted" | "open" | "closed";

/**
 * `createdAfter` (inclusive) / `createdBefore` (exclusive) of the run and process
 * lists: an ISO-8601 date-time with offset, or a Date (sent as its ISO form).
 */
export interface CreatedRangeOptions {
  createdAfter?: IsoTime | Date;
  createdBefore?: IsoTime | Date;
}

export interface ProcessListOptions extends PageOptions, CreatedRangeOptions {
  state?: ProcessState;
  /** Whose processes (default: the acting user). */
  user?: string;
}

/**
 * `GET /v1/tasks?status=`: `open` (the inbox, default), `claimed`, `completed`
 * (for a user: the tasks the user completed), `cancelled` or `all`.
 * `completed` and `cancelled` page newest first by completion time.
 */
export type TaskListStatus = "open" | "claimed" | "completed" | "cancelled" | "all";

export interface GroupInboxOptions extends PageOptions {
  /** Which of the group's tasks (default: `open`). */
  status?: TaskListStatus;
}

export interface InboxOptions extends GroupInboxOptions {
  /** Whose inbox (default: the acting user). */
  user?: string;
}

export type TaskStatus = "open" | "claimed" | "done" | "cancelled";

export interface Task {
  id: string;
  instanceId: string;
  rootInstanceId: string;
  definitionKey: string;
  assignee: TaskAssignee;
  assignedBy: string;
  status: TaskStatus;
  claimedBy: string | null;
  claimedAt: IsoTime | null;
  completedBy: string | null;
  completedAt: IsoTime | null;
  vars: Vars | null;
  createdAt: IsoTime;
}

export interface Instance {
  id: string;
  kind: "process" | "referral";
  definitionKey: string;
  parentInstanceId: string | null;
  rootInstanceId: string;
  status: "running" | "completed";
  /** For a process: its user-process state; `null` for a referral. */
  processState: ProcessState | null;
  vars: Vars;
  startedBy: string;
  createdAt: IsoTime;
  completedAt: IsoTime | null;
  /** The pending join of a referral, or `null`. */
  onAllCompleted: NextAssignment | null;
  joinedAt: IsoTime | null;
}

/** `GET /v1/instances/{id}`: the instance with its tasks and, recursively, its children. */
export interface InstanceTree extends Instance {
  children: InstanceTree[];
  tasks: Task[];
}

export interface Completion {
  instanceId: string;
  allCompleted: boolean;
  total: number;
  open: number;
  claimed: number;
  done: number;
  cancelled: number;
}

export interface Definition {
  id: string;
  key: string;
  name: string;
  createdAt: IsoTime;
}

export interface AssignResult {
  instanceId: string;
  /** The first task (the only one for a `user` or `group` assignee). */
  task: Task;
  tasks: Task[];
}

export interface CompleteRequest {
  vars?: Vars;
  /** Assign this next, under the same root, in the same transaction. */
  next?: NextAssignment;
}

export interface CompleteResult {
  task: Task;
  /** The task's referral after this completion. */
  completion: Completion;
  /** The assignment this completion caused (the explicit `next`, else the join), or `null`. */
  next: AssignResult | null;
  /** The join this completion performed, or `null`. */
  joined: AssignResult | null;
}

export interface CompleteAndEndResult {
  task: Task;
  /** How many other open or claimed tasks were cancelled. */
  cancelled: number;
  rootInstanceId: string;
}

// ── durable runs ──────────────────────────────────────────────────────────────

export type RunStatus = "pending" | "running" | "waiting" | "completed" | "failed" | "cancelled";

/** A recorded error of a failed or cancelled run (or of a run blocked by non-determinism). */
export interface RunFailure {
  name: string;
  message: string;
  stack: string | null;
  nonRetryable: boolean;
  /** `"cancelled"`, `"timeout"` or `"nondeterminism"` for the engine's own failures. */
  type?: string;
}

export interface Run<I = unknown, O = unknown> {
  runId: string;
  workflow: string;
  status: RunStatus;
  input: I | null;
  output: O | null;
  error: RunFailure | null;
  rootInstanceId: string | null;
  parentRunId: string | null;
  /** Who started it (a child run: its parent's starter); `null` only for some runs stored before 004. */
  startedBy: string | null;
  cancelRequested: boolean;
  createdAt: IsoTime;
  updatedAt: IsoTime;
}

export interface StartRunRequest<I = unknown> {
  input?: I;
  /** The caller's run id (start is idempotent by it); default a generated UUIDv7. */
  id?: string;
}

/** The answer of signal and cancel: the run's status at the moment of the answer. */
export interface RunAccepted {
  runId: string;
  status: RunStatus;
}

/** The answer of start: `created` is false when a run with that `id` already existed (200). */
export interface StartedRun extends RunAccepted {
  created: boolean;
}

export interface RunListOptions extends PageOptions, CreatedRangeOptions {
  status?: RunStatus;
  workflow?: string;
  /** The actor who started the runs. */
  startedBy?: string;
}

/**
 * One history event, typed by `type` (docs/api.md lists them): narrow on
 * `type` and, for events that end an earlier call, on `"ref" in data`. `at` is
 * an ISO time; times inside `data` are epoch milliseconds. The shapes are the
 * persisted history's own, from the domain layer, so the two cannot drift.
 */
export type RunEvent = RunEventJson;

/** One page of a run's history; `nextCursor` null on the last. */
export interface RunHistory {
  items: RunEvent[];
  nextCursor: string | null;
}

/** A history page: `limit` 1–500 (server default 500; a page also stops near 1 MiB of data). */
export type RunHistoryOptions = PageOptions;
