/**
 * Durable runs: one execution of a workflow, its append-only history
 * (run-event.ts) and the signals sent to it.
 */
import type { WorkflowFailure } from "./workflow-failure.ts";

export const RunStatuses = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  /** Kept from every worker: its executions kept crashing or failing on replay (docs/durable.md). */
  "quarantined",
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
  /**
   * Who started it: the actor of the start; a child run records its parent's
   * starter (the owner of its process too). Null only for a run stored before
   * the starter was recorded and without a root instance to learn it from.
   */
  startedBy: string | null;
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
  /**
   * Claims since the run last parked or continued as new: each execution that
   * crashed, was killed or lost its lease before either leaves one more. Past
   * the worker's limit the run is quarantined instead of executed again.
   */
  stalledExecutions: number;
}

export type { RunEvent, RunEventType } from "./run-event.ts";

export interface RunSignal {
  id: string;
  name: string;
  payload: unknown;
  at: number;
  consumedSeq: number | null;
}
