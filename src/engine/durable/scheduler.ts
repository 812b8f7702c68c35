/**
 * The run's scheduler: which ctx call goes on when.
 *
 * - **Tracking.** Every ctx call in flight is counted; a call that cannot
 *   finish now *parks* instead of halting at once. With several waits pending
 *   (Promise.race of a task and a timer) each one gets to look first, and once
 *   every call in flight is parked the run suspends on all of them — earliest
 *   timer, every wake-up signal — so whichever completes first wakes it.
 * - **Turns.** Recorded completions are delivered in history order: those of
 *   concurrent waits resolve lowest seq first, one per macrotask, so a
 *   replayed race has the winner it had when it ran live.
 * - **The live lane.** Live checks (which may record a completion) run one at
 *   a time and after every recorded completion was delivered, so completions
 *   are recorded in the order the workflow sees them.
 */
import { Suspend, type Halt, type Halts } from "./halts.ts";
import { checkHeld, LeaseTerm } from "./lease-term.ts";

/** What the scheduler needs of the history writer. */
export interface PendingWrites {
  /** Marker writes still in flight: the run does not suspend before they are done. */
  readonly pendingMarkers: number;
  /** Writes the deferred step completions first (undefined: there are none). */
  flushIfPending(): Promise<void> | undefined;
}

interface Parked {
  wakeAt: number | null;
  signalNames: readonly string[];
  reject: (e: unknown) => void;
}

interface Turn {
  seq: number;
  resolve: () => void;
}

export class Scheduler {
  /** Rejects when the run suspends (every ctx call parked): the executor races it. */
  readonly suspended: Promise<never>;
  private suspendRun!: (h: Halt) => void;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly parked: Parked[] = [];
  /** Off once the workflow function settled: parked waits no longer suspend the run. */
  quiesce = true;
  private quiesceQueued = false;
  /** A ctx call settled in the current macrotask: workflow code may still be reacting. */
  private settledThisTick = false;
  private changeWaiters: (() => void)[] = [];
  /** Recorded completions waiting to be delivered. */
  private readonly turns: Turn[] = [];
  private turnQueued = false;
  private lane: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly halts: Halts,
    private readonly writes: PendingWrites,
    private readonly term: LeaseTerm = LeaseTerm.unbounded(Date.now),
  ) {
    this.suspended = new Promise<never>((_, reject) => (this.suspendRun = reject));
    this.suspended.catch(() => undefined);
  }

  /** ctx calls in flight, parked ones included. */
  get inFlight(): number {
    return this.inflight.size;
  }

  /** Runs a ctx call, counted while in flight; a synchronous throw becomes a rejection. */
  track<T>(op: () => Promise<T>): Promise<T> {
    let p: Promise<T>;
    try {
      p = op();
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    this.inflight.add(p);
    const done = () => {
      this.inflight.delete(p);
      if (!this.settledThisTick) {
        this.settledThisTick = true;
        setImmediate(() => (this.settledThisTick = false));
      }
      this.changed();
    };
    void p.then(done, done);
    return p;
  }

  /** A wait that cannot finish now: rejects with the Suspend once the run suspends. */
  park(wakeAt: number | null, signalNames: readonly string[]): Promise<never> {
    return new Promise<never>((_, reject) => {
      this.parked.push({ wakeAt, signalNames, reject });
      this.changed();
    });
  }

  /** Something settled (a call, a marker write): wake `settle` and check for quiescence. */
  changed(): void {
    const ws = this.changeWaiters;
    this.changeWaiters = [];
    for (const w of ws) w();
    if (this.parked.length === 0 || !this.quiesce || this.quiesceQueued) return;
    // No ctx call settled in this macrotask: the microtasks of the last one that did
    // have run, so workflow code has made every call it will make. Check at once.
    if (!this.settledThisTick) return this.checkQuiescent();
    this.quiesceQueued = true;
    // After the microtasks: workflow code reacting to the last result has made its calls.
    setImmediate(() => {
      this.quiesceQueued = false;
      this.checkQuiescent();
    });
  }

  private checkQuiescent(): void {
    if (!this.quiesce || this.halts.current !== undefined || this.parked.length === 0) return;
    if (this.writes.pendingMarkers > 0 || this.inflight.size > this.parked.length) return;
    let wakeAt: number | null = null;
    const names = new Set<string>();
    for (const p of this.parked) {
      if (p.wakeAt !== null && (wakeAt === null || p.wakeAt < wakeAt)) wakeAt = p.wakeAt;
      for (const n of p.signalNames) names.add(n);
    }
    const h = this.halts.raiseQuietly(new Suspend(wakeAt, [...names]));
    for (const p of this.parked.splice(0)) p.reject(h);
    this.suspendRun(h);
  }

  /**
   * Waits for pending marker writes and in-flight calls (after a halt or at the
   * end); parked waits the workflow no longer awaits (a lost race) are abandoned.
   */
  async settle(): Promise<void> {
    while (this.writes.pendingMarkers > 0 || this.inflight.size > this.parked.length) {
      await new Promise<void>((r) => this.changeWaiters.push(r));
    }
  }

  /** Resolves when the recorded completion at `seq` is next in history order. */
  turn(seq: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.turns.push({ seq, resolve });
      this.queueTurn();
    });
  }

  private queueTurn(): void {
    if (this.turnQueued) return;
    this.turnQueued = true;
    setImmediate(() => {
      this.turnQueued = false;
      if (this.turns.length === 0) return;
      let i = 0;
      for (let j = 1; j < this.turns.length; j++) {
        if (this.turns[j]!.seq < this.turns[i]!.seq) i = j;
      }
      const [t] = this.turns.splice(i, 1);
      if (this.turns.length > 0) this.queueTurn();
      t!.resolve();
    });
  }

  /**
   * Runs a live check that may record a completion: after every recorded
   * completion was delivered (its turn is last), after the deferred step
   * completions are written, and one at a time.
   */
  live<T>(check: () => Promise<T>): Promise<T> {
    const run = this.lane
      .then(() => this.turn(Infinity))
      .then(() => this.writes.flushIfPending())
      .then(() => {
        // A live check may assign an inbox task, start a child or record: not on a lapsed lease.
        checkHeld(this.halts, this.term);
        return check();
      });
    this.lane = run.catch(() => undefined);
    return run;
  }
}
