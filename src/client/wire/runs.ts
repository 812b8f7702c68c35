/** Durable runs and their history as the REST API sends and accepts them (docs/api.md, Run). */
import type { RunEventJson } from "../../domain/run-event.ts";
import type { IsoTime, Page } from "./common.ts";

/**
 * `quarantined`: no worker takes the run until an operator releases it (docs/durable.md);
 * `completed`, `failed` and `cancelled` are final.
 */
export type RunStatus =
  "pending" | "running" | "waiting" | "completed" | "failed" | "cancelled" | "quarantined";

/** A recorded error of a failed or cancelled run (or of a run blocked by non-determinism). */
export interface RunFailure {
  name: string;
  message: string;
  stack: string | null;
  nonRetryable: boolean;
  /** `"cancelled"`, `"timeout"`, `"nondeterminism"`, `"quarantined"`, … for the engine's own failures. */
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

/** The answer of start, signal and cancel: the run's status at the moment of the answer. */
export interface RunAccepted {
  runId: string;
  status: RunStatus;
}

/**
 * The client's answer of start: `created` is false when a run with that `id`
 * already existed. Not on the wire — the client reads it from the status (201 or 200).
 */
export interface StartedRun extends RunAccepted {
  created: boolean;
}

/**
 * One history event, typed by `type` (docs/api.md lists them): narrow on
 * `type` and, for events that end an earlier call, on `"ref" in data`. `at` is
 * an ISO time; times inside `data` are epoch milliseconds. The shapes are the
 * persisted history's own, from the domain layer, so the two cannot drift.
 */
export type RunEvent = RunEventJson;

/** One page of a run's history; `nextCursor` null on the last. */
export type RunHistory = Page<RunEvent>;
