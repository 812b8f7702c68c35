/**
 * The history writer: the one route by which a run's events reach the store.
 * Every event an execution records goes through one of its methods, and each
 * method both writes the event and shows it to the history cursor:
 *
 * - `append` — a call or completion event the call waits for (fenced: a lost
 *   lease halts the run);
 * - `defer` — a succeeded step's completion, written before the run's next
 *   durable action, or by RunStore.finish together with the run's outcome;
 * - `mark` — a marker (now, random, uuid, patch) the call does not wait for;
 * - `consumeSignal` — a signal event, written with the signal's consumption;
 * - `recordBlocked` — the executor's note that replay diverged.
 */
import type { RunEvent, SignalEvent, SignalReceivedEvent } from "../../domain/run-event.ts";
import type { WorkflowFailure } from "../../domain/workflow-failure.ts";
import type { ExecutionStore } from "./halting-store.ts";
import { LeaseLost, type Halt, type Halts } from "./halts.ts";
import type { HistoryCursor } from "./replay/history-cursor.ts";
import type { Lease, RunStore } from "./run-store-port.ts";

export class HistoryWriter {
  /**
   * Completions of steps that succeeded, not yet written. A step's result is
   * handed to the workflow code at once, and recorded before the run's next
   * durable action: the next step's attempt, any other ctx call's live work,
   * a suspension — or, for the last steps, in the same write as the run's
   * outcome (RunStore.finish). Workflow code between two ctx calls is
   * deterministic and has no effects, so nothing outside the run can observe
   * the difference; it saves one commit per workflow (the last step's).
   */
  private readonly deferred: RunEvent[] = [];
  private flushing: Promise<void> | undefined;
  /** Marker writes in flight (nobody awaits them). */
  private readonly markers = new Set<Promise<unknown>>();

  /**
   * `store` turns failures into halts (halting-store.ts); `raw` is the store
   * itself, for the executor's last write after the run halted.
   * `onMarkerSettled`: the scheduler looks again once a marker write is done.
   */
  constructor(
    private readonly store: ExecutionStore,
    private readonly raw: RunStore,
    private readonly lease: Lease,
    private readonly cursor: HistoryCursor,
    private readonly halts: Halts,
    private readonly onMarkerSettled: () => void,
  ) {}

  get pendingMarkers(): number {
    return this.markers.size;
  }

  /** Writes the event after the deferred completions; halts with LeaseLost when fenced. */
  async append(ev: RunEvent): Promise<void> {
    await this.flushIfPending();
    if (!(await this.store.appendEvent(this.lease, ev))) throw this.halts.raise(new LeaseLost());
    this.cursor.remember(ev);
  }

  /** A succeeded step's completion: seen by replay at once, written later (see `deferred`). */
  defer(ev: RunEvent): void {
    this.cursor.remember(ev);
    this.deferred.push(ev);
  }

  /** A marker write that the call does not wait for (now/random/uuid/patched). */
  mark(ev: RunEvent): void {
    this.cursor.remember(ev);
    const p = this.store.appendEvent(this.lease, ev).then(
      (ok) => {
        if (!ok) this.halts.raiseQuietly(new LeaseLost());
      },
      // The halting store rejects with its StoreFailed halt; nobody awaits this
      // write, so wake the waits that should notice it.
      (h: unknown) => this.halts.raiseQuietly(h as Halt),
    );
    this.markers.add(p);
    void p.finally(() => {
      this.markers.delete(p);
      this.onMarkerSettled();
    });
  }

  /** Writes a signal event and marks the signal consumed by it, atomically. */
  async consumeSignal(signalId: string, ev: SignalEvent | SignalReceivedEvent): Promise<void> {
    const ok = await this.store.consumeSignal(this.lease, signalId, ev);
    if (!ok) throw this.halts.raise(new LeaseLost());
    this.cursor.remember(ev);
  }

  /**
   * Writes the deferred step completions; rejects with LeaseLost when fenced.
   * Concurrent callers share one write.
   */
  flush(): Promise<void> {
    if (this.deferred.length === 0) return this.flushing ?? Promise.resolve();
    const events = this.deferred.splice(0);
    const before = this.flushing ?? Promise.resolve();
    const p = before.then(async () => {
      for (const ev of events) {
        if (!(await this.store.appendEvent(this.lease, ev)))
          throw this.halts.raise(new LeaseLost());
      }
    });
    this.flushing = p;
    const clear = () => {
      if (this.flushing === p) this.flushing = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  /** Before anything durable: the deferred completions first (undefined: nothing to wait for). */
  flushIfPending(): Promise<void> | undefined {
    return this.deferred.length > 0 || this.flushing !== undefined ? this.flush() : undefined;
  }

  /** The deferred completions, handed to RunStore.finish to write with the outcome. */
  takeDeferred(): RunEvent[] {
    return this.deferred.splice(0);
  }

  /**
   * Records that replay diverged at the end of history; false when fenced.
   * Through the store itself: the run has halted, so a store error goes to the
   * worker as it is.
   */
  recordBlocked(seq: number, failure: WorkflowFailure, at: number): Promise<boolean> {
    const ev: RunEvent = {
      seq,
      type: "nondeterminism",
      name: null,
      at,
      data: { ref: -1, failure },
    };
    return this.raw.appendEvent(this.lease, ev);
  }
}
