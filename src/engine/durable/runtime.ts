/**
 * The parts of one execution of a run, as the ctx commands (commands/*) use
 * them: RunContext creates them here, and the commands are functions of this
 * bundle.
 */
import type { Run } from "../../domain/run.ts";
import type { RunEvent } from "../../domain/run-event.ts";
import { Cancellation } from "./cancellation.ts";
import type { ContextOptions } from "./context-options.ts";
import { haltingBridge } from "./halting-bridge.ts";
import { haltingOnError, type ExecutionStore } from "./halting-store.ts";
import { Halts, StoreFailed } from "./halts.ts";
import { HistoryWriter } from "./history-writer.ts";
import type { HumanTaskBridge } from "./human-task-bridge.ts";
import type { LeaseTerm } from "./lease-term.ts";
import { HistoryCursor } from "./replay/history-cursor.ts";
import type { Lease, RunStore } from "./run-store-port.ts";
import { Scheduler } from "./scheduler.ts";
import type { WorkflowOptions } from "./types.ts";

export interface Runtime {
  readonly run: Run;
  readonly lease: Lease;
  /** Until when the lease is held by the clock: checked before every live side effect. */
  readonly term: LeaseTerm;
  readonly options: ContextOptions;
  readonly workflowOptions: WorkflowOptions;
  readonly halts: Halts;
  readonly cursor: HistoryCursor;
  readonly writer: HistoryWriter;
  readonly scheduler: Scheduler;
  readonly cancellation: Cancellation;
  /** Reads and side effects other than history writes (those go through `writer`). */
  readonly store: ExecutionStore;
  /** The inbox (ctx.humanTask), its failures halting like the store's; undefined without one. */
  readonly humanTasks: HumanTaskBridge | undefined;
}

/** Wires the parts of one execution: `events` is the run's history so far. */
export function createRuntime(
  run: Run,
  events: readonly RunEvent[],
  raw: RunStore,
  lease: Lease,
  term: LeaseTerm,
  workflowOptions: WorkflowOptions,
  options: ContextOptions,
): Runtime {
  const cancellation = new Cancellation(run.cancelRequested);
  const halts = new Halts(() => cancellation.wake());
  const storeFailed = (e: unknown) => halts.raise(new StoreFailed(e));
  const store = haltingOnError(raw, storeFailed);
  const bridge = options.humanTasks;
  const humanTasks = bridge === undefined ? undefined : haltingBridge(bridge, storeFailed);
  const cursor = new HistoryCursor(
    run.firstSeq,
    events,
    halts,
    cancellation,
    options.maxHistoryEvents,
  );
  const writer = new HistoryWriter(store, raw, lease, cursor, halts, () => scheduler.changed());
  const scheduler = new Scheduler(halts, writer, term);
  return {
    run,
    lease,
    term,
    options,
    workflowOptions,
    halts,
    cursor,
    writer,
    scheduler,
    cancellation,
    store,
    humanTasks,
  };
}
