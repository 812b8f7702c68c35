/**
 * The parts of one execution of a run, as the ctx commands (commands/*) use
 * them. RunContext builds them; the commands are functions of this bundle.
 */
import type { Run } from "../../domain/run.ts";
import type { Cancellation } from "./cancellation.ts";
import type { ContextOptions } from "./context-options.ts";
import type { ExecutionStore } from "./halting-store.ts";
import type { Halts } from "./halts.ts";
import type { HistoryWriter } from "./history-writer.ts";
import type { HistoryCursor } from "./replay/history-cursor.ts";
import type { Lease } from "./run-store-port.ts";
import type { Scheduler } from "./scheduler.ts";
import type { WorkflowOptions } from "./types.ts";

export interface Runtime {
  readonly run: Run;
  readonly lease: Lease;
  readonly options: ContextOptions;
  readonly workflowOptions: WorkflowOptions;
  readonly halts: Halts;
  readonly cursor: HistoryCursor;
  readonly writer: HistoryWriter;
  readonly scheduler: Scheduler;
  readonly cancellation: Cancellation;
  /** Reads and side effects other than history writes (those go through `writer`). */
  readonly store: ExecutionStore;
}
