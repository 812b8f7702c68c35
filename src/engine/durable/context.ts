/**
 * The replay context: the `ctx` a workflow function receives, a façade over
 * the runtime's parts (one concept per file):
 *
 *   ctx call ─► commands/* ─► replay/history-cursor (position, non-determinism check)
 *                         └─► history-writer (the one route to the store)
 *   scheduler (parking, turns, the live lane) · cancellation · halts · retry-policy
 *
 * Every ctx call takes a history position (seq) when it is made. If history
 * has an event there, the call must match it and returns the recorded result;
 * otherwise the call runs for real and records its event at that seq. A call
 * that cannot finish now (a timer not due, no signal yet) parks; once every
 * call is parked the run suspends (see scheduler.ts), and a worker replays it
 * when it is woken.
 */
import { toMs, type Duration } from "../../domain/duration.ts";
import type { HumanTaskResult } from "../../domain/human-task-result.ts";
import type { Run } from "../../domain/run.ts";
import type { RunEvent } from "../../domain/run-event.ts";
import type { WorkflowFailure } from "../../domain/workflow-failure.ts";
import { runChild } from "./commands/child.ts";
import { runHumanTask } from "./commands/human-task.ts";
import { patched, recordedNow, recordedRandom, recordedUuid } from "./commands/markers.ts";
import { compensate, sagaOf, type Compensation } from "./commands/saga.ts";
import { waitForSignal } from "./commands/signal.ts";
import { runStep } from "./commands/step.ts";
import { runTimer } from "./commands/timer.ts";
import { DEFAULT_CONTEXT_OPTIONS, type ContextOptions } from "./context-options.ts";
import { ContinueAsNew, LeaseLost, type Halt } from "./halts.ts";
import { toJson } from "./json-form.ts";
import { LeaseTerm } from "./lease-term.ts";
import type { Lease, RunStore } from "./run-store-port.ts";
import { createRuntime, type Runtime } from "./runtime.ts";
import type {
  ChildOptions,
  HumanTaskOptions,
  Saga,
  StepFn,
  StepOptions,
  WorkflowContext,
  WorkflowDefinition,
  WorkflowOptions,
} from "./types.ts";

export { DEFAULT_CONTEXT_OPTIONS, type ContextOptions };

export class RunContext implements WorkflowContext {
  readonly runId: string;
  readonly tenantId: string;
  readonly workflow: string;
  readonly compensations: Compensation[] = [];
  /** Rejects when the run suspends (every ctx call parked): the executor races it. */
  readonly suspended: Promise<never>;
  private readonly rt: Runtime;
  /** ctx.patched answers, by patch id. */
  private readonly patches = new Map<string, boolean>();

  constructor(
    run: Run,
    events: readonly RunEvent[],
    store: RunStore,
    lease: Lease,
    workflowOptions: WorkflowOptions,
    options: ContextOptions = DEFAULT_CONTEXT_OPTIONS,
    term: LeaseTerm = LeaseTerm.unbounded(options.now),
  ) {
    this.runId = run.id;
    this.tenantId = run.tenantId;
    this.workflow = run.workflow;
    this.rt = createRuntime(run, events, store, lease, term, workflowOptions, options);
    this.suspended = this.rt.scheduler.suspended;
  }

  // ---- for the executor and the worker ---------------------------------------------

  /** The halt that stopped this execution, if any. */
  get halted(): Halt | undefined {
    return this.rt.halts.current;
  }

  get cancelRequested(): boolean {
    return this.rt.cancellation.requested;
  }

  /** Called by the worker when a heartbeat sees cancel_requested. */
  requestCancel(): void {
    this.rt.cancellation.request();
  }

  /** Called by the worker when the lease was lost: every further call halts. */
  loseLease(): void {
    this.rt.halts.raiseQuietly(new LeaseLost());
  }

  /** The first seq after everything seen or written (the next generation starts there). */
  get endSeq(): number {
    return this.rt.cursor.endSeq;
  }

  /** Whether history already records this non-determinism (one event per distinct error). */
  hasBlockEvent(message: string): boolean {
    return this.rt.cursor.hasBlock(message);
  }

  /** Records that replay diverged (after the run halted); false when fenced. */
  recordBlocked(failure: WorkflowFailure, now: number): Promise<boolean> {
    return this.rt.writer.recordBlocked(this.endSeq, failure, now);
  }

  /** Waits for pending marker writes and in-flight calls (after a halt or at the end). */
  settle(): Promise<void> {
    return this.rt.scheduler.settle();
  }

  /** Writes the deferred step completions; rejects with LeaseLost when fenced. */
  flushTail(): Promise<void> {
    return this.rt.writer.flush();
  }

  /** The deferred completions, handed to RunStore.finish to write with the outcome. */
  takeTail(): RunEvent[] {
    return this.rt.writer.takeDeferred();
  }

  /** The workflow function settled: parked waits no longer suspend the run. */
  stopSuspending(): void {
    this.rt.scheduler.quiesce = false;
  }

  /** Runs the registered compensations in reverse order. */
  compensate(): Promise<WorkflowFailure[]> {
    return compensate(this.rt, this.compensations, (name, fn, o) => this.step(name, fn, o));
  }

  // ---- ctx API ---------------------------------------------------------------------

  step<T>(name: string, fn: StepFn<T>, options: StepOptions = {}): Promise<T> {
    const rt = this.rt;
    // The step's T is the workflow's word for what its function returns; replay returns the record.
    return rt.scheduler.track(() => runStep(rt, rt.cursor.next(), name, fn, options)) as Promise<T>;
  }

  sleep(duration: Duration): Promise<void> {
    const ms = toMs(duration);
    const rt = this.rt;
    return rt.scheduler.track(() => runTimer(rt, rt.cursor.next(), () => rt.options.now() + ms));
  }

  sleepUntil(at: Date | number): Promise<void> {
    const t = typeof at === "number" ? at : at.getTime();
    const rt = this.rt;
    return rt.scheduler.track(() => runTimer(rt, rt.cursor.next(), () => t));
  }

  async waitForSignal<T = unknown>(
    name: string,
    options: { timeout?: Duration } = {},
  ): Promise<T | null> {
    const outcome = await this.waitForSignalOutcome<T>(name, options);
    return outcome.timedOut ? null : outcome.payload;
  }

  waitForSignalOutcome<T = unknown>(
    name: string,
    options: { timeout?: Duration } = {},
  ): Promise<{ timedOut: false; payload: T } | { timedOut: true }> {
    const timeoutMs = options.timeout === undefined ? null : toMs(options.timeout);
    const rt = this.rt;
    return rt.scheduler.track(() =>
      waitForSignal(rt, rt.cursor.next(), name, timeoutMs),
    ) as Promise<{ timedOut: false; payload: T } | { timedOut: true }>;
  }

  now(): number {
    return recordedNow(this.rt);
  }

  random(): number {
    return recordedRandom(this.rt);
  }

  uuid(): string {
    return recordedUuid(this.rt);
  }

  patched(id: string): boolean {
    return patched(this.rt, this.patches, id);
  }

  continueAsNew(input: unknown): Promise<never> {
    this.rt.halts.check();
    return Promise.reject(this.rt.halts.raise(new ContinueAsNew(toJson(input))));
  }

  saga(): Saga {
    return sagaOf(this.compensations);
  }

  humanTask(name: string, options: HumanTaskOptions): Promise<HumanTaskResult> {
    const rt = this.rt;
    return rt.scheduler.track(() => runHumanTask(rt, rt.cursor.next(), name, options));
  }

  child<I, O>(
    workflow: WorkflowDefinition<I, O> | string,
    input?: I,
    options: ChildOptions = {},
  ): Promise<O> {
    const name = typeof workflow === "string" ? workflow : workflow.name;
    const rt = this.rt;
    return rt.scheduler.track(() =>
      runChild(rt, rt.cursor.next(), name, input, options),
    ) as Promise<O>;
  }
}
