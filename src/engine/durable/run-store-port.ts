/**
 * The run-store port: what the durable runtime needs from storage. Separate
 * from the human-task store (../human-tasks/task-store-port.ts) so each can
 * evolve alone; the SQL adapter implements both over one connection pool.
 *
 * Glossary
 * - run: one execution of a workflow function, a row with a status (pending,
 *   running, waiting, completed, failed, cancelled, quarantined).
 * - history: the run's events, numbered by seq from 0; replaying them gives
 *   the workflow the results it had, so code re-runs without redoing effects.
 * - lease: (tenant, run, owner) — a worker's claim on a run until
 *   lease_until; the heartbeat extends it, and an expired lease makes the run
 *   claimable by any worker (a takeover).
 * - claim: taking due runs (wake_at ≤ now) under a lease.
 * - wake_at: when a run is next due: a timer, a retry, a lapsed lease.
 * - suspend: parking a waiting run with its lease released, until wake_at or
 *   a signal.
 * - signal: a named message to a run, stored until a history event consumes
 *   it; wake-up hints (a task completed, a child finished) are signals too.
 * - generation: continueAsNew starts the next one, with new input and the
 *   history before `firstSeq` deleted.
 * - quarantine: kept from every worker after too many executions that got
 *   nowhere.
 * - served record: which workflows and steps a node has code for, and when it
 *   last said so.
 *
 * Fencing: a worker acts on a run only while it holds the run's lease
 * (lease_owner = its id). Every write that belongs to an execution carries the
 * Lease and is conditional on it; appending a history event whose seq already
 * exists fails too (the primary key (tenant_id, run_id, seq) is the fence), so a
 * worker whose lease was taken over learns it on its next write and abandons
 * the run.
 */
import type { Run, RunEvent, RunSignal, RunStatus } from "../../domain/run.ts";
import type { WorkflowFailure } from "../../domain/workflow-failure.ts";
import type { RunListOrder, RunPosition } from "./run-list-order.ts";

export interface Lease {
  tenantId: string;
  runId: string;
  owner: string;
}

export interface NewRun {
  tenantId: string;
  id: string;
  workflow: string;
  input: unknown;
  parentRunId: string | null;
  /** Who started it (X-Actor-Id); the owner of the run's root instance. */
  startedBy: string;
  /** The root instance's definition key; default: the workflow's name. */
  definitionKey?: string | undefined;
  /**
   * A child run that belongs to its parent's process: this existing root
   * instance instead of one of its own (nothing inserted), and its finish
   * leaves that process open (the parent run owns it).
   */
  rootInstanceId?: string | undefined;
  now: number;
  /**
   * Start already leased by this owner (status running, lease until the given time)
   * so the local worker can execute it without a claim round trip.
   */
  leaseTo?: { owner: string; until: number } | undefined;
  /** The id is freshly generated (UUIDv7): it cannot exist yet, so no lookup first. */
  idGenerated?: boolean | undefined;
}

/** The run a start creates, as every RunStore stores it (input as given; the store copies it). */
export function initialRun(r: NewRun, rootInstanceId: string | null): Run {
  return {
    tenantId: r.tenantId,
    id: r.id,
    workflow: r.workflow,
    status: r.leaseTo ? "running" : "pending",
    input: r.input,
    output: null,
    error: null,
    rootInstanceId,
    parentRunId: r.parentRunId,
    // A child's "" means "its parent's starter", which the store resolves.
    startedBy: r.startedBy === "" ? null : r.startedBy,
    createdAt: r.now,
    updatedAt: r.now,
    wakeAt: r.leaseTo ? r.leaseTo.until : r.now,
    leaseOwner: r.leaseTo?.owner ?? null,
    leaseUntil: r.leaseTo?.until ?? null,
    cancelRequested: false,
    generation: 0,
    firstSeq: 0,
    stalledExecutions: 0,
  };
}

export interface RunListQuery {
  tenantId: string;
  status?: RunStatus | undefined;
  workflow?: string | undefined;
  startedBy?: string | undefined;
  /** Created at or after this time (epoch ms, inclusive). */
  createdFrom?: number | undefined;
  /** Created before this time (epoch ms, exclusive). */
  createdUntil?: number | undefined;
  limit: number;
  /** By id ascending (keyset `after`; the default), or by creation time then id, descending (keyset `before`). */
  order?: RunListOrder | undefined;
  /** Oldest first: an exclusive lower bound on id. */
  after?: string | undefined;
  /** Newest first: only runs strictly before this position in that order. */
  before?: RunPosition | undefined;
}

/** A run still held after a heartbeat. */
export interface HeldRun {
  tenantId: string;
  id: string;
  cancelRequested: boolean;
}

export type SuspendResult = "suspended" | "wakeNow" | "lost";

/**
 * What the executor already knows when a run ends, so the store can finish it
 * in one round trip: the run's root instance and parent never change, and the
 * last steps' completion events (written with the outcome, atomically — see
 * HistoryWriter.defer) are appended by the same write.
 */
export interface FinishExtras {
  rootInstanceId: string | null;
  parentRunId: string | null;
  events: readonly RunEvent[];
}

/** What a worker serves: workflows (runs it claims) or code steps (`call` states). */
export type ServedKind = "workflow" | "step";

/** A worker's word that it has the code of these workflows and steps (see served-workflows.ts). */
export interface ServedRecord {
  /** The worker's owner id (host:pid:random): one set of rows per process. */
  node: string;
  workflows: readonly string[];
  /** The code steps registered in its process (registerStep). */
  steps?: readonly string[] | undefined;
  now: number;
  /** Rows of any node last refreshed before this no longer count: they are deleted. */
  forgetBefore: number;
}

/** What a signal from outside may not pass (0: no cap). */
export interface SignalCaps {
  /** Unconsumed signals of the run, this one included. */
  maxPending: number;
  /** Events of the run's current generation plus its unconsumed signals (each becomes one). */
  maxHistory: number;
}

/** A signal refused by a cap: which one, and its value. */
export interface SignalRefused {
  refused: "pending" | "history";
  cap: number;
}

/** The number of a run's events and unconsumed signals, against its caps. */
export function signalRefusal(
  caps: SignalCaps | undefined,
  pending: number,
  historyLength: number,
): SignalRefused | undefined {
  if (caps === undefined) return undefined;
  if (caps.maxPending > 0 && pending + 1 > caps.maxPending) {
    return { refused: "pending", cap: caps.maxPending };
  }
  if (caps.maxHistory > 0 && historyLength + pending + 1 > caps.maxHistory) {
    return { refused: "history", cap: caps.maxHistory };
  }
  return undefined;
}

export interface RunStore {
  /** Inserts the run (and its root instance) unless (tenant, id) exists; idempotent start. */
  createRun(r: NewRun): Promise<{ run: Run; created: boolean }>;
  getRun(tenantId: string, id: string): Promise<Run | undefined>;
  /** Runs in id order, filtered. */
  listRuns(q: RunListQuery): Promise<Run[]>;
  /** History events with seq >= fromSeq, in seq order; at most `limit` of them when given. */
  loadHistory(
    tenantId: string,
    runId: string,
    fromSeq: number,
    limit?: number,
  ): Promise<RunEvent[]>;

  /**
   * Claims up to `limit` runs with wake_at <= now (pending, due timers, woken
   * waits, expired leases): status running, lease_owner = owner, lease_until and
   * wake_at = leaseUntil, stalled_executions + 1 (reset by suspend and
   * continueAsNew). FOR UPDATE SKIP LOCKED where rows lock. Only runs of
   * `workflows` (the ones this worker has code for) when given.
   */
  claimRuns(
    owner: string,
    now: number,
    leaseUntil: number,
    limit: number,
    workflows?: readonly string[],
  ): Promise<Run[]>;
  /** Extends every lease `owner` holds; returns the runs it still holds. */
  heartbeat(owner: string, now: number, leaseUntil: number): Promise<HeldRun[]>;
  /** Soonest wake_at of a waiting run after now, or null (for timer scheduling). */
  nextWakeAt(now: number): Promise<number | null>;

  /** Appends one event; false when fenced (seq taken or lease lost). */
  appendEvent(lease: Lease, event: RunEvent): Promise<boolean>;
  /** The oldest unconsumed signal of that name. */
  peekSignal(tenantId: string, runId: string, name: string): Promise<RunSignal | undefined>;
  /**
   * Appends the event and marks the signal consumed by it, atomically; false
   * when fenced or when the signal was consumed meanwhile.
   */
  consumeSignal(lease: Lease, signalId: string, event: RunEvent): Promise<boolean>;
  /**
   * Marks wake-up hints (task completion, child finished) as seen, without a
   * history event (consumed_seq = -1): the run reads the truth right after.
   */
  dropSignals(lease: Lease, names: readonly string[]): Promise<void>;
  /**
   * Parks the run: status waiting, wake_at = wakeAt, lease released. If cancel
   * was requested or an unconsumed signal with one of `signalNames` exists
   * (checked after the row is locked), wake_at = now instead ("wakeNow").
   * The run's error is cleared, or set to `blocked`: a run blocked by a
   * NonDeterminismError waits for fixed code — it is not failed, and neither
   * signals nor cancellation wake it before wakeAt (no hot loop).
   */
  suspend(
    lease: Lease,
    wakeAt: number | null,
    signalNames: readonly string[],
    now: number,
    blocked?: WorkflowFailure,
  ): Promise<SuspendResult>;
  /**
   * Terminal status with output or error, and the extras' events, atomically;
   * false when fenced (lease lost, or an event's seq already taken).
   */
  finish(
    lease: Lease,
    status: "completed" | "failed" | "cancelled",
    output: unknown,
    error: WorkflowFailure | null,
    now: number,
    extras?: FinishExtras,
  ): Promise<boolean>;
  /**
   * Starts the next generation: input replaced, generation + 1, history from
   * `firstSeq` (older events deleted), lease kept. False when fenced.
   */
  continueAsNew(lease: Lease, input: unknown, firstSeq: number, now: number): Promise<boolean>;
  /**
   * Keeps a run from every worker: status quarantined, wake_at and lease
   * cleared, `failure` as its error. Fenced like finish; false when fenced.
   */
  quarantine(lease: Lease, failure: WorkflowFailure, now: number): Promise<boolean>;
  /** Gives the lease up so any worker may claim the run now (shutdown, abandon). */
  release(lease: Lease, now: number): Promise<void>;

  /**
   * Stores a signal and wakes the run if it is waiting. undefined = no such run;
   * false = the run has finished (signal not stored). With `caps`, checked with
   * the run's row locked (so concurrent senders cannot pass a cap together): a
   * refusal names the cap the signal would pass, and nothing is stored.
   */
  sendSignal(
    tenantId: string,
    runId: string,
    signal: { id: string; name: string; payload: unknown },
    now: number,
    caps?: SignalCaps,
  ): Promise<boolean | undefined | SignalRefused>;
  /** Sets cancel_requested and wakes the run if waiting; undefined = no such run. */
  requestCancel(tenantId: string, runId: string, now: number): Promise<Run | undefined>;

  /**
   * Records (or refreshes) the node's workflows with seen_at = now, after
   * deleting every row last seen before forgetBefore. Answers how many rows
   * it wrote and how many it forgot.
   */
  recordServed(r: ServedRecord): Promise<{ recorded: number; forgotten: number }>;
  /** When a worker last recorded serving `name` (epoch ms; a workflow by default); null when none has. */
  lastServed(name: string, kind?: ServedKind): Promise<number | null>;
}
