/**
 * The client's public types: the wire contract (./wire/, the JSON of the REST API
 * v1 as docs/api.md writes it, shared with the server's views and the Console)
 * and the options of the client's calls, which are the client's own (query
 * parameters and headers, not JSON bodies).
 *
 * The wire types are written in src/client on purpose rather than imported
 * from the engine: the client is for host backends and depends on nothing but
 * the HTTP contract (and the domain's error catalogue and history event shapes).
 */
import type { IsoTime } from "./wire/common.ts";
import type { RunStatus } from "./wire/runs.ts";
import type { ProcessState } from "./wire/processes.ts";

export * from "./wire/index.ts";

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

export interface PageOptions {
  /** Page size, 1–500 (server default 50). */
  limit?: number;
  /** The `nextCursor` of the previous page, unchanged. */
  cursor?: string;
}

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

export interface RunListOptions extends PageOptions, CreatedRangeOptions {
  status?: RunStatus;
  workflow?: string;
  /** The actor who started the runs. */
  startedBy?: string;
}

/** A history page: `limit` 1–500 (server default 500; a page also stops near 1 MiB of data). */
export type RunHistoryOptions = PageOptions;
