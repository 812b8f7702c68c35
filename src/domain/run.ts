/**
 * Durable runs (DESIGN §1 durable side): one execution of a workflow, its
 * append-only history and the signals sent to it.
 */
import type { WorkflowFailure } from "./workflow-failure.ts";

export const RunStatuses = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
] as const;
export type RunStatus = (typeof RunStatuses)[number];

export const TERMINAL: readonly RunStatus[] = ["completed", "failed", "cancelled"];
export const isTerminal = (s: RunStatus) => TERMINAL.includes(s);

/** Caller-chosen run ids are at most this long (otherwise a UUIDv7 is generated). */
export const MAX_RUN_ID_LENGTH = 128;

export interface Run {
  tenantId: string;
  id: string;
  workflow: string;
  status: RunStatus;
  input: unknown;
  output: unknown;
  error: WorkflowFailure | null;
  rootInstanceId: string | null;
  parentRunId: string | null;
  createdAt: number;
  updatedAt: number;
  /**
   * When a worker must next look at the run: pending → its start time; waiting →
   * its timer or timeout (null: only a signal or task completion wakes it);
   * running → its lease expiry (a dead worker's run is taken over); terminal → null.
   * The claim query is just `wake_at <= now`.
   */
  wakeAt: number | null;
  leaseOwner: string | null;
  leaseUntil: number | null;
  cancelRequested: boolean;
  /** Incremented by continueAsNew. */
  generation: number;
  /** History of the current generation starts at this seq (seqs never restart). */
  firstSeq: number;
}

/**
 * History event types. Each ctx call records one event (waiting calls record a
 * "…_wait" event first); replay matches calls to events by (seq, type, name).
 */
export type RunEventType =
  | "step" // data: { result } | { failure }
  | "step_retry" // data: { attempt, retryAt, failure } — a durable backoff
  | "timer" // data: { wakeAt }
  | "signal_wait" // data: { deadline | null }
  | "signal" // data: { payload, signalId }
  | "signal_timeout"
  | "now" // data: { value }
  | "random"
  | "uuid"
  | "patch"
  | "cancelled"
  | "task_wait" // data: { instanceId, taskIds }
  | "task"
  | "child_started" // data: { childRunId }
  | "child"
  | "nondeterminism"; // data: { ref: -1, failure } — replay diverged; the run is blocked

export interface RunEvent {
  seq: number;
  type: RunEventType;
  name: string | null;
  at: number;
  data: unknown;
}

export interface RunSignal {
  id: string;
  name: string;
  payload: unknown;
  at: number;
  consumedSeq: number | null;
}
