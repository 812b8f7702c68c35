/**
 * The replay context: the `ctx` a workflow function receives.
 *
 * Every ctx call takes a history position (seq) when it is made — synchronously,
 * so concurrent calls (Promise.all) get the same positions on every replay. If
 * history has an event there, the call must match its (type, name) and returns
 * the recorded result (a mismatch is a NonDeterminismError); otherwise the call
 * runs for real and appends its event at that seq.
 *
 * Calls that take a while (waits, durable retries) record a *call event* at their
 * seq and later *completion events* that point back at it with `data.ref`;
 * completion events are skipped when positions are handed out, so they never
 * shift the positions of other calls.
 *
 * A call that cannot finish now (a timer not due, no signal yet) halts the run
 * with a Suspend: the executor parks it (status waiting, wake_at) and a worker
 * replays it when it is woken.
 */
import { createHash, randomUUID } from "node:crypto";
import { toMs, type Duration } from "../../domain/duration.ts";
import { isTerminal, type Run, type RunEvent, type RunEventType } from "../../domain/run.ts";
import type { Task } from "../../domain/task.ts";
import {
  CancelledFailure,
  ChildFailedError,
  NonDeterminismError,
  NonRetryableError,
  StepFailedError,
  StepTimeoutError,
  toFailure,
  type WorkflowFailure,
} from "../../domain/workflow-failure.ts";
import { taskSignal, type HumanTaskBridge } from "./human-task-bridge.ts";
import type { Lease, RunStore } from "./run-store-port.ts";
import type {
  HumanTaskOptions,
  HumanTaskResult,
  RetryPolicy,
  Saga,
  StepFn,
  StepOptions,
  TaskPolicy,
  WorkflowContext,
  WorkflowDefinition,
  WorkflowOptions,
} from "./types.ts";

/**
 * Halts: thrown through workflow code to unwind it, never recorded. The
 * context remembers the halt, so workflow code that catches one changes nothing:
 * every later ctx call throws it again and the executor reads `ctx.halted`.
 */
export class HaltSignal extends Error {}
export class Suspend extends HaltSignal {
  constructor(
    readonly wakeAt: number | null,
    readonly signalNames: readonly string[] = [],
  ) {
    super("suspended");
  }
}
export class ContinueAsNew extends HaltSignal {
  constructor(readonly input: unknown) {
    super("continue as new");
  }
}
export class LeaseLost extends HaltSignal {
  constructor() {
    super("lease lost");
  }
}
/**
 * A durable read or write failed for a reason other than fencing (the store is
 * unreachable, a statement failed). Not the workflow's failure: the execution
 * stops, the worker releases the run, and a later execution replays it from
 * what was recorded. Workflow code never sees the store's error.
 */
export class StoreFailed extends HaltSignal {
  constructor(override readonly cause: unknown) {
    super("store failed", { cause });
  }
}
export type Halt = Suspend | ContinueAsNew | LeaseLost | StoreFailed | NonDeterminismError;

export interface ContextOptions {
  /** Waits shorter than this are awaited in memory (lease held); longer ones suspend. */
  inMemoryWaitMs: number;
  /** Retry delays shorter than this are slept in memory; longer ones are durable. */
  inMemoryBackoffMs: number;
  /**
   * A run waiting on human tasks or a child also re-checks them this often, in
   * case the wake-up that follows their completion was lost (a crash right after it).
   */
  recheckMs: number;
  /** A run blocked by a NonDeterminismError is tried again after this long. */
  nondeterminismBackoffMs: number;
  now: () => number;
  /** The inbox, for ctx.humanTask. */
  humanTasks?: HumanTaskBridge | undefined;
}

export const DEFAULT_CONTEXT_OPTIONS: ContextOptions = {
  inMemoryWaitMs: 1_000,
  inMemoryBackoffMs: 5_000,
  recheckMs: 30_000,
  nondeterminismBackoffMs: 60_000,
  now: Date.now,
};

/** The signal a finishing child run sends its parent. */
export const childSignal = (childRunId: string) => `__child:${childRunId}`;

/** Deterministic and at most 128 characters: the same child on every replay. */
export function childRunId(parentId: string, seq: number): string {
  const id = `${parentId}:${seq}`;
  if (id.length <= 128) return id;
  return `${createHash("sha256").update(parentId).digest("hex").slice(0, 64)}:${seq}`;
}

interface Compensation {
  name: string | null;
  fn: (() => Promise<unknown>) | StepFn<unknown>;
  options: StepOptions | undefined;
}

const DEFAULT_RETRY: Required<RetryPolicy> = {
  maxAttempts: 3,
  initialInterval: 100,
  backoff: 2,
  maxInterval: 60_000,
};

export class RunContext implements WorkflowContext {
  readonly runId: string;
  readonly tenantId: string;
  readonly workflow: string;

  /** Recorded events by seq. */
  private readonly history = new Map<number, RunEvent>();
  /** Completion events by the seq of their call. */
  private readonly refs = new Map<number, RunEvent[]>();
  private nextSeq: number;
  private highSeq: number;
  private readonly patches = new Map<string, boolean>();
  private readonly writes = new Set<Promise<unknown>>();
  /**
   * Completions of steps that succeeded, not yet written. A step's result is
   * handed to the workflow code at once, and recorded before the run's next
   * durable action: the next step's attempt, any other ctx call's live work,
   * a suspension — or, for the last steps, in the same write as the run's
   * outcome (RunStore.finish). Workflow code between two ctx calls is
   * deterministic and has no effects, so nothing outside the run can observe
   * the difference; it saves one commit per workflow (the last step's).
   */
  private readonly tail: RunEvent[] = [];
  private flushing: Promise<void> | undefined;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly cancelWaiters = new Set<() => void>();
  readonly compensations: Compensation[] = [];

  halted: Halt | undefined;
  compensating = false;
  private cancelFlag: boolean;

  /** Waits that cannot finish now; the run suspends once every ctx call is parked. */
  private readonly parked: {
    wakeAt: number | null;
    signalNames: readonly string[];
    reject: (e: unknown) => void;
  }[] = [];
  private quiesceOn = true;
  private quiesceQueued = false;
  /** A ctx call settled in the current macrotask: workflow code may still be reacting. */
  private settledThisTick = false;
  private changeWaiters: (() => void)[] = [];
  /** Recorded completions waiting to be delivered, lowest seq first. */
  private readonly turns: { c: number; resolve: () => void }[] = [];
  private turnQueued = false;
  /** Live checks (which may record a completion) run one at a time, after replay. */
  private lane: Promise<unknown> = Promise.resolve();
  private suspendRun!: (h: Halt) => void;
  /** Rejects when the run suspends (every ctx call parked): the executor races it. */
  readonly suspended: Promise<never>;
  /** Every call's error becomes a StoreFailed halt (see haltingOnError). */
  private readonly store: RunStore;

  constructor(
    private readonly run: Run,
    events: readonly RunEvent[],
    store: RunStore,
    private readonly lease: Lease,
    private readonly wfOptions: WorkflowOptions,
    private readonly options: ContextOptions = DEFAULT_CONTEXT_OPTIONS,
  ) {
    this.store = haltingOnError(store, (e) => this.halt(new StoreFailed(e)));
    this.runId = run.id;
    this.tenantId = run.tenantId;
    this.workflow = run.workflow;
    this.cancelFlag = run.cancelRequested;
    this.nextSeq = run.firstSeq;
    this.highSeq = run.firstSeq - 1;
    for (const e of events) this.remember(e);
    this.suspended = new Promise<never>((_, reject) => (this.suspendRun = reject));
    this.suspended.catch(() => undefined);
  }

  get cancelRequested(): boolean {
    return this.cancelFlag;
  }

  /** Called by the worker when a heartbeat sees cancel_requested. */
  requestCancel(): void {
    this.cancelFlag = true;
    for (const w of this.cancelWaiters) w();
  }

  /** Called by the worker when the lease was lost: every further call halts. */
  loseLease(): void {
    this.halt(new LeaseLost(), false);
  }

  /** The first seq after everything seen or written (the next generation starts there). */
  get endSeq(): number {
    return Math.max(this.highSeq, this.nextSeq - 1) + 1;
  }

  /** Whether history already records this non-determinism (one event per distinct error). */
  hasBlockEvent(message: string): boolean {
    for (const e of this.history.values()) {
      if (
        e.type === "nondeterminism" &&
        (e.data as { failure?: { message?: string } })?.failure?.message === message
      )
        return true;
    }
    return false;
  }

  /**
   * Waits for pending marker writes and in-flight calls (after a halt or at the
   * end); parked waits the workflow no longer awaits (a lost race) are abandoned.
   */
  async settle(): Promise<void> {
    while (this.writes.size > 0 || this.inflight.size > this.parked.length) {
      await new Promise<void>((r) => this.changeWaiters.push(r));
    }
  }

  /**
   * Writes the deferred step completions (see `tail`); rejects with LeaseLost
   * when fenced. Concurrent callers share one write.
   */
  flushTail(): Promise<void> {
    if (this.tail.length === 0) return this.flushing ?? Promise.resolve();
    const events = this.tail.splice(0);
    const before = this.flushing ?? Promise.resolve();
    const p = before.then(async () => {
      for (const ev of events) {
        if (!(await this.store.appendEvent(this.lease, ev))) throw this.halt(new LeaseLost());
      }
    });
    this.flushing = p;
    const clear = () => {
      if (this.flushing === p) this.flushing = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  /** The deferred completions, handed to RunStore.finish to write with the outcome. */
  takeTail(): RunEvent[] {
    return this.tail.splice(0);
  }

  /** Before anything durable: the deferred completions first. */
  private durable(): Promise<void> | undefined {
    return this.tail.length > 0 || this.flushing !== undefined ? this.flushTail() : undefined;
  }

  /** The workflow function settled: parked waits no longer suspend the run. */
  stopSuspending(): void {
    this.quiesceOn = false;
  }

  // ---- ctx API --------------------------------------------------------------

  step<T>(name: string, fn: StepFn<T>, options: StepOptions = {}): Promise<T> {
    return this.track(() => {
      const seq = this.callSeq();
      return this.doStep(seq, name, fn, options);
    });
  }

  sleep(duration: Duration): Promise<void> {
    const ms = toMs(duration);
    return this.track(() => this.timer(this.callSeq(), () => this.options.now() + ms));
  }

  sleepUntil(at: Date | number): Promise<void> {
    const t = typeof at === "number" ? at : at.getTime();
    return this.track(() => this.timer(this.callSeq(), () => t));
  }

  waitForSignal<T = unknown>(
    name: string,
    options: { timeout?: Duration } = {},
  ): Promise<T | null> {
    const timeoutMs = options.timeout === undefined ? null : toMs(options.timeout);
    return this.track(() => this.signal(this.callSeq(), name, timeoutMs) as Promise<T | null>);
  }

  now(): number {
    return this.recordedValue("now", () => this.options.now()) as number;
  }

  random(): number {
    return this.recordedValue("random", () => Math.random()) as number;
  }

  uuid(): string {
    return this.recordedValue("uuid", () => randomUUID()) as string;
  }

  patched(id: string): boolean {
    this.checkHalt();
    const known = this.patches.get(id);
    if (known !== undefined) return known;
    const seq = this.peekSeq();
    const ev = this.history.get(seq);
    let result: boolean;
    if (ev === undefined) {
      // Live: code that has the patch records a marker and takes the new path.
      this.callSeq();
      this.write({ seq, type: "patch", name: id, at: this.options.now(), data: null });
      result = true;
    } else if (ev.type === "patch" && ev.name === id) {
      this.callSeq();
      result = true;
    } else {
      // The run recorded something else here: it ran under code without the patch.
      result = false;
    }
    this.patches.set(id, result);
    return result;
  }

  continueAsNew(input: unknown): Promise<never> {
    this.checkHalt();
    return Promise.reject(this.halt(new ContinueAsNew(toJson(input))));
  }

  saga(): Saga {
    const list = this.compensations;
    return {
      onFailure(
        a: string | (() => Promise<unknown>),
        b?: StepFn<unknown>,
        options?: StepOptions,
      ): void {
        if (typeof a === "string") list.push({ name: a, fn: b!, options });
        else list.push({ name: null, fn: a, options: undefined });
      },
    };
  }

  /** Runs the registered compensations in reverse order (the executor calls this). */
  async compensate(): Promise<WorkflowFailure[]> {
    this.compensating = true;
    this.quiesceOn = true;
    try {
      const failures: WorkflowFailure[] = [];
      for (const c of [...this.compensations].reverse()) {
        try {
          const run =
            c.name === null
              ? (c.fn as () => Promise<unknown>)()
              : this.step(c.name, c.fn, c.options);
          await Promise.race([run, this.suspended]);
        } catch (e) {
          if (this.halted !== undefined) throw this.halted;
          failures.push(toFailure(e));
        }
      }
      return failures;
    } finally {
      this.quiesceOn = false;
    }
  }

  humanTask(name: string, options: HumanTaskOptions): Promise<HumanTaskResult> {
    return this.track(() => this.doHumanTask(this.callSeq(), name, options));
  }

  child<I, O>(workflow: WorkflowDefinition<I, O> | string, input?: I): Promise<O> {
    const name = typeof workflow === "string" ? workflow : workflow.name;
    return this.track(() => this.doChild(this.callSeq(), name, input) as Promise<O>);
  }

  // ---- positions and history -------------------------------------------------

  private remember(e: RunEvent): void {
    const ref = refOf(e);
    if (ref === null) this.history.set(e.seq, e);
    else {
      const list = this.refs.get(ref) ?? [];
      list.push(e);
      this.refs.set(ref, list);
      this.history.set(e.seq, e);
    }
    if (e.seq > this.highSeq) this.highSeq = e.seq;
  }

  /** The next position for a call, skipping completion events. */
  private peekSeq(): number {
    let s = this.nextSeq;
    for (let e = this.history.get(s); e !== undefined && refOf(e) !== null; e = this.history.get(s))
      s++;
    return s;
  }

  private callSeq(): number {
    this.checkHalt();
    const s = this.peekSeq();
    this.nextSeq = s + 1;
    return s;
  }

  /** A position for a completion event written now: past everything recorded. */
  private completionSeq(): number {
    const s = Math.max(this.highSeq + 1, this.nextSeq);
    this.highSeq = s;
    return s;
  }

  /** The recorded event at seq, checked against what the code asks for. */
  private recorded(
    seq: number,
    types: readonly RunEventType[],
    name: string | null,
  ): RunEvent | undefined {
    const ev = this.history.get(seq);
    if (ev === undefined) return undefined;
    if (ev.type === "cancelled" && !this.compensating) throw new CancelledFailure();
    if (!types.includes(ev.type) || ev.name !== name) {
      const err = new NonDeterminismError(
        seq,
        describe(ev.type, ev.name),
        describe(types[0]!, name),
      );
      throw this.halt(err);
    }
    return ev;
  }

  private lastRef(seq: number): RunEvent | undefined {
    const list = this.refs.get(seq);
    return list?.[list.length - 1];
  }

  private async append(
    seq: number,
    type: RunEventType,
    name: string | null,
    data: unknown,
  ): Promise<void> {
    const ev: RunEvent = { seq, type, name, at: this.options.now(), data };
    await this.durable();
    const ok = await this.store.appendEvent(this.lease, ev);
    if (!ok) throw this.halt(new LeaseLost());
    this.remember(ev);
  }

  /** A marker write that the call does not wait for (now/random/uuid/patched). */
  private write(ev: RunEvent): void {
    this.remember(ev);
    const p = this.store.appendEvent(this.lease, ev).then(
      (ok) => {
        if (!ok) this.halt(new LeaseLost(), false);
      },
      // The store wrapper rejects with its StoreFailed halt; nobody awaits this
      // write, so wake the waits that should notice it.
      (h: unknown) => this.halt(h as Halt, false),
    );
    this.writes.add(p);
    void p.finally(() => {
      this.writes.delete(p);
      this.changed();
    });
  }

  private recordedValue(type: "now" | "random" | "uuid", make: () => unknown): unknown {
    const seq = this.callSeq();
    const ev = this.recorded(seq, [type], null);
    if (ev !== undefined) return (ev.data as { value: unknown }).value;
    const value = make();
    this.write({ seq, type, name: null, at: this.options.now(), data: { value } });
    return value;
  }

  // ---- halts and cancellation ---------------------------------------------------

  private halt(h: Halt, throwIt = true): Halt {
    const rank = (x: Halt | undefined) =>
      x instanceof StoreFailed
        ? 5
        : x instanceof LeaseLost
          ? 4
          : x instanceof NonDeterminismError
            ? 3
            : x instanceof ContinueAsNew
              ? 2
              : x instanceof Suspend
                ? 1
                : 0;
    if (rank(h) > rank(this.halted)) this.halted = h;
    if (!throwIt) for (const w of this.cancelWaiters) w();
    return this.halted ?? h;
  }

  private checkHalt(): void {
    if (this.halted !== undefined) throw this.halted;
  }

  private get cancelling(): boolean {
    return this.cancelFlag && !this.compensating;
  }

  /** Records the cancellation at `seq` (as a call or as the completion of `ref`) and throws. */
  private async cancelAt(seq: number | null, ref: number | null): Promise<never> {
    if (seq !== null) await this.append(seq, "cancelled", null, null);
    else await this.append(this.completionSeq(), "cancelled", null, { ref });
    throw new CancelledFailure();
  }

  private track<T>(op: () => Promise<T>): Promise<T> {
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

  /**
   * Tells a running step attempt about a cancel request (its `signal` aborts);
   * returns the unsubscribe. Not during compensation: compensations run to the end.
   */
  private readonly abortOnCancel = (abort: () => void): (() => void) => {
    if (this.compensating) return () => undefined;
    if (this.cancelFlag) {
      abort();
      return () => undefined;
    }
    const w = () => {
      if (this.cancelFlag && !this.compensating) abort();
    };
    this.cancelWaiters.add(w);
    return () => this.cancelWaiters.delete(w);
  };

  /** Resolves after ms, or early when cancellation is requested. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.cancelWaiters.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.cancelWaiters.add(done);
    });
  }

  // ---- parking, quiescence and completion order -------------------------------------

  /**
   * A wait that cannot finish now parks instead of halting at once: with several
   * waits pending (Promise.race of a task and a timer), each one gets to look
   * first, and the run suspends on all of them — earliest timer, every wake-up
   * signal — so whichever completes first wakes it.
   */
  private park(wakeAt: number | null, signalNames: readonly string[]): Promise<never> {
    return new Promise<never>((_, reject) => {
      this.parked.push({ wakeAt, signalNames, reject });
      this.changed();
    });
  }

  private changed(): void {
    const ws = this.changeWaiters;
    this.changeWaiters = [];
    for (const w of ws) w();
    if (this.parked.length === 0 || !this.quiesceOn || this.quiesceQueued) return;
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
    if (!this.quiesceOn || this.halted !== undefined || this.parked.length === 0) return;
    if (this.writes.size > 0 || this.inflight.size > this.parked.length) return;
    let wakeAt: number | null = null;
    const names = new Set<string>();
    for (const p of this.parked) {
      if (p.wakeAt !== null && (wakeAt === null || p.wakeAt < wakeAt)) wakeAt = p.wakeAt;
      for (const n of p.signalNames) names.add(n);
    }
    const h = this.halt(new Suspend(wakeAt, [...names]), false);
    for (const p of this.parked.splice(0)) p.reject(h);
    this.suspendRun(h);
  }

  /**
   * Delivers a recorded completion in history order: completions of concurrent
   * waits resolve lowest seq first, one per macrotask, so a replayed race has
   * the winner it had when it ran live.
   */
  private turn(c: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.turns.push({ c, resolve });
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
      for (let j = 1; j < this.turns.length; j++) if (this.turns[j]!.c < this.turns[i]!.c) i = j;
      const [t] = this.turns.splice(i, 1);
      if (this.turns.length > 0) this.queueTurn();
      t!.resolve();
    });
  }

  /**
   * A live check that may record a completion: after every recorded completion
   * was delivered, and one at a time, so completions are recorded in the order
   * the workflow sees them.
   */
  private live<T>(check: () => Promise<T>): Promise<T> {
    const run = this.lane
      .then(() => this.turn(Infinity))
      .then(() => this.durable())
      .then(() => {
        this.checkHalt();
        return check();
      });
    this.lane = run.catch(() => undefined);
    return run;
  }

  // ---- timers -------------------------------------------------------------------

  private async timer(seq: number, wakeAtNow: () => number): Promise<void> {
    let ev = this.recorded(seq, ["timer"], "sleep");
    if (ev === undefined) {
      if (this.cancelling) await this.cancelAt(seq, null);
      await this.append(seq, "timer", "sleep", { wakeAt: wakeAtNow() });
      ev = this.history.get(seq)!;
    } else {
      // Fired (or cancelled) while racing other waits: delivered in history order.
      const done = this.lastRef(seq);
      if (done !== undefined) {
        await this.turn(done.seq);
        if (done.type === "cancelled") throw new CancelledFailure();
        return;
      }
    }
    const wakeAt = (ev.data as { wakeAt: number }).wakeAt;
    await this.waitUntil(seq, wakeAt, [], true);
  }

  /**
   * Returns once now >= wakeAt; parks when that is far; throws when cancelled.
   * `record`: a timer that fires while other calls are in flight records a
   * completion ("timer" with ref), so a race with it replays the same way.
   */
  private async waitUntil(
    seq: number,
    wakeAt: number,
    signalNames: string[],
    record = false,
  ): Promise<void> {
    for (;;) {
      const left = await this.live(async () => {
        if (this.lastRef(seq)?.type === "cancelled") throw new CancelledFailure();
        const ms = wakeAt - this.options.now();
        if (ms <= 0) {
          if (record && this.inflight.size > 1) {
            await this.append(this.completionSeq(), "timer", "sleep", { ref: seq });
          }
          return 0;
        }
        if (this.cancelling) await this.cancelAt(null, seq);
        return ms;
      });
      if (left <= 0) return;
      if (left > this.options.inMemoryWaitMs) return this.park(wakeAt, signalNames);
      await this.pause(left);
      this.checkHalt();
    }
  }

  // ---- signals ------------------------------------------------------------------

  private async signal(seq: number, name: string, timeoutMs: number | null): Promise<unknown> {
    const ev = this.recorded(seq, ["signal", "signal_wait"], name);
    if (ev?.type === "signal") {
      await this.turn(seq);
      return (ev.data as { payload: unknown }).payload;
    }
    let deadline: number | null = null;
    if (ev === undefined) {
      const got = await this.live(async () => {
        if (this.cancelling) await this.cancelAt(seq, null);
        const sig = await this.takeSignal(seq, null, name);
        if (sig.found) return sig;
        deadline = timeoutMs === null ? null : this.options.now() + timeoutMs;
        await this.append(seq, "signal_wait", name, { deadline });
        return sig;
      });
      if (got.found) return got.payload;
    } else {
      deadline = (ev.data as { deadline: number | null }).deadline;
      const done = this.lastRef(seq);
      if (done !== undefined) {
        await this.turn(done.seq);
        if (done.type === "signal") return (done.data as { payload: unknown }).payload;
        if (done.type === "signal_timeout") return null;
        if (done.type === "cancelled") throw new CancelledFailure();
      }
    }
    // Live wait.
    const until = deadline;
    const got = await this.live(async () => {
      const sig = await this.takeSignal(null, seq, name);
      if (sig.found) return sig;
      if (until !== null && this.options.now() >= until) {
        await this.append(this.completionSeq(), "signal_timeout", name, { ref: seq });
        return { found: true as const, payload: null };
      }
      if (this.cancelling) await this.cancelAt(null, seq);
      return sig;
    });
    if (got.found) return got.payload;
    return this.park(until, [name]);
  }

  private async takeSignal(
    seq: number | null,
    ref: number | null,
    name: string,
  ): Promise<{ found: true; payload: unknown } | { found: false }> {
    const sig = await this.store.peekSignal(this.tenantId, this.runId, name);
    this.checkHalt();
    if (sig === undefined) return { found: false };
    const at = seq ?? this.completionSeq();
    const data =
      ref === null
        ? { payload: sig.payload, signalId: sig.id }
        : { payload: sig.payload, signalId: sig.id, ref };
    const ev: RunEvent = { seq: at, type: "signal", name, at: this.options.now(), data };
    const ok = await this.store.consumeSignal(this.lease, sig.id, ev);
    if (!ok) throw this.halt(new LeaseLost());
    this.remember(ev);
    return { found: true, payload: sig.payload };
  }

  // ---- human tasks ------------------------------------------------------------------

  private async doHumanTask(
    seq: number,
    name: string,
    o: HumanTaskOptions,
  ): Promise<HumanTaskResult> {
    const ev = this.recorded(seq, ["task_wait"], name);
    const bridge = this.options.humanTasks;
    if (bridge === undefined) throw new Error("ctx.humanTask needs the inbox (createTaskflow)");
    if (ev === undefined) {
      await this.live(async () => {
        if (this.cancelling) await this.cancelAt(seq, null);
        const root = this.run.rootInstanceId;
        if (root === null) throw new Error(`run '${this.runId}' has no root instance`);
        const tag = { runId: this.runId, seq, name };
        // A previous attempt may have created the referral and crashed before recording it,
        // or a second execution (lease takeover) may be creating it right now.
        const instanceId = await bridge.ensureReferral(
          this.tenantId,
          root,
          tag,
          o.assignee,
          o.vars ?? {},
          this.options.now(),
        );
        this.checkHalt();
        const deadline = o.timeout === undefined ? null : this.options.now() + toMs(o.timeout);
        await this.append(seq, "task_wait", name, {
          instanceId,
          policy: o.policy ?? "all",
          deadline,
        });
      });
      // The tasks were just created; a completion since then sends the wake-up
      // signal, which makes the suspension wake at once.
      const d = this.history.get(seq)!.data as { instanceId: string; deadline: number | null };
      if (d.deadline === null || d.deadline > this.options.now()) {
        const recheck = this.options.now() + this.options.recheckMs;
        const wakeAt = d.deadline === null ? recheck : Math.min(recheck, d.deadline);
        return this.park(wakeAt, [taskSignal(d.instanceId)]);
      }
    } else {
      const done = this.lastRef(seq);
      if (done !== undefined) {
        await this.turn(done.seq);
        if (done.type === "task") {
          // Results recorded before `timedOut` existed lack it.
          const r = (done.data as { result: Partial<HumanTaskResult> }).result;
          return { ...r, timedOut: r.timedOut ?? false } as HumanTaskResult;
        }
        if (done.type === "cancelled") throw new CancelledFailure();
      }
    }
    const d = this.history.get(seq)!.data as {
      instanceId: string;
      policy: TaskPolicy;
      deadline?: number | null;
    };
    const referralId = d.instanceId;
    const deadline = d.deadline ?? null;
    const result = await this.live(async () => {
      await this.store.dropSignals(this.lease, [taskSignal(referralId)]);
      const tasks = await bridge.tasksOf(this.tenantId, referralId);
      this.checkHalt();
      const now = this.options.now();
      let r = evaluatePolicy(referralId, tasks, d.policy);
      if (r === null && deadline !== null && now >= deadline) {
        r = timedOutResult(referralId, tasks);
      }
      if (r !== null) {
        if (tasks.some((t) => t.status === "open" || t.status === "claimed")) {
          await bridge.cancelUnfinished(this.tenantId, referralId, now);
        }
        await this.append(this.completionSeq(), "task", name, { ref: seq, result: r });
        return r;
      }
      if (this.cancelling) {
        await bridge.cancelUnfinished(this.tenantId, referralId, now);
        await this.cancelAt(null, seq);
      }
      return null;
    });
    if (result !== null) return result;
    const recheck = this.options.now() + this.options.recheckMs;
    const wakeAt = deadline === null ? recheck : Math.min(recheck, deadline);
    return this.park(wakeAt, [taskSignal(referralId)]);
  }

  // ---- child runs -------------------------------------------------------------------

  private async doChild(seq: number, name: string, input: unknown): Promise<unknown> {
    const ev = this.recorded(seq, ["child_started"], name);
    if (ev === undefined) {
      await this.live(async () => {
        if (this.cancelling) await this.cancelAt(seq, null);
        const id = childRunId(this.runId, seq);
        // Idempotent by id: a retry after a crash finds the child it already started.
        await this.store.createRun({
          tenantId: this.tenantId,
          id,
          workflow: name,
          input: toJson(input) ?? null,
          parentRunId: this.runId,
          startedBy: "",
          now: this.options.now(),
        });
        this.checkHalt();
        await this.append(seq, "child_started", name, { childRunId: id });
      });
    } else {
      const done = this.lastRef(seq);
      if (done !== undefined) {
        await this.turn(done.seq);
        if (done.type === "child") return childResult(name, done);
        if (done.type === "cancelled") throw new CancelledFailure();
      }
    }
    const childId = (this.history.get(seq)!.data as { childRunId: string }).childRunId;
    const done = await this.live(async () => {
      await this.store.dropSignals(this.lease, [childSignal(childId)]);
      const child = await this.store.getRun(this.tenantId, childId);
      this.checkHalt();
      if (child !== undefined && isTerminal(child.status)) {
        const data =
          child.status === "completed"
            ? { ref: seq, result: child.output }
            : { ref: seq, failure: child.error ?? toFailure(new Error(`child ${child.status}`)) };
        await this.append(this.completionSeq(), "child", name, data);
        return this.lastRef(seq)!;
      }
      if (this.cancelling) {
        await this.store.requestCancel(this.tenantId, childId, this.options.now());
        await this.cancelAt(null, seq);
      }
      return undefined;
    });
    if (done !== undefined) return childResult(name, done);
    return this.park(this.options.now() + this.options.recheckMs, [childSignal(childId)]);
  }

  // ---- steps --------------------------------------------------------------------

  private async doStep<T>(
    seq: number,
    name: string,
    fn: StepFn<T>,
    options: StepOptions,
  ): Promise<T> {
    const ev = this.recorded(seq, ["step", "step_retry"], name);
    let attempt = 1;
    let isCall = true;
    if (ev !== undefined) {
      const last = ev.type === "step" ? ev : (this.lastRef(seq) ?? ev);
      if (last.type === "step") return stepResult<T>(name, last);
      if (last.type === "cancelled") throw new CancelledFailure();
      const retry = last.data as { attempt: number; retryAt: number };
      attempt = retry.attempt + 1;
      isCall = false;
      await this.waitUntil(seq, retry.retryAt, []);
    } else if (this.cancelling) {
      await this.cancelAt(seq, null);
    }

    const policy = { ...DEFAULT_RETRY, ...this.wfOptions.retry, ...options.retry };
    const timeoutMs = options.timeout === undefined ? null : toMs(options.timeout);
    const idempotencyKey = `${this.runId}:${seq}`;
    const flushed = this.durable();
    if (flushed !== undefined) await flushed;
    for (; ; attempt++) {
      const at = () => (isCall ? seq : this.completionSeq());
      const extra = (d: object) => (isCall ? d : { ...d, ref: seq });
      let result: T;
      try {
        result = await runAttempt(fn, idempotencyKey, attempt, timeoutMs, this.abortOnCancel);
      } catch (e) {
        this.checkHalt();
        // Cancelled while running and the function gave up: the step ends cancelled, no retry.
        if (this.cancelling) await this.cancelAt(isCall ? seq : null, isCall ? null : seq);
        const failure = toFailure(e);
        const final =
          failure.nonRetryable ||
          isListed(e, options.nonRetryable) ||
          attempt >= Math.max(1, policy.maxAttempts);
        if (final) {
          await this.append(at(), "step", name, extra({ failure }));
          throw new StepFailedError(name, failure);
        }
        const delay = backoffDelay(policy, attempt);
        if (delay < this.options.inMemoryBackoffMs) {
          await this.pause(delay);
          this.checkHalt();
          continue;
        }
        const retryAt = this.options.now() + delay;
        await this.append(at(), "step_retry", name, extra({ attempt, retryAt, failure }));
        isCall = false;
        await this.waitUntil(seq, retryAt, []);
        continue;
      }
      this.checkHalt();
      const value = toJson(result) as T;
      const ev: RunEvent = {
        seq: at(),
        type: "step",
        name,
        at: this.options.now(),
        data: extra({ result: value }),
      };
      this.remember(ev);
      this.tail.push(ev);
      return value;
    }
  }
}

// ---- human tasks and children (methods added to RunContext below) -------------------

// ---- helpers ---------------------------------------------------------------------

/** The policy's verdict on a referral's tasks, or null while it is still open. */
export function evaluatePolicy(
  instanceId: string,
  tasks: readonly Task[],
  policy: TaskPolicy,
): HumanTaskResult | null {
  const done = tasks
    .filter((t) => t.status === "done")
    .sort((a, b) => (a.completedAt ?? 0) - (b.completedAt ?? 0));
  const completions = done.map((t) => ({
    taskId: t.id,
    completedBy: t.completedBy ?? "",
    vars: t.vars,
    completedAt: t.completedAt ?? 0,
  }));
  const need =
    policy === "all"
      ? tasks.length
      : policy === "any"
        ? 1
        : Math.min(Math.max(1, policy.atLeast), tasks.length);
  const unfinished = tasks.some((t) => t.status === "open" || t.status === "claimed");
  const met = tasks.length > 0 && done.length >= need;
  if (!met && unfinished) return null;
  const deciding = met ? done[need - 1] : done[done.length - 1];
  const action = deciding?.vars?.action;
  return {
    instanceId,
    completedBy: deciding?.completedBy ?? null,
    vars: deciding?.vars ?? null,
    action: typeof action === "string" ? action : null,
    completions,
    cancelled: !met,
    timedOut: false,
  };
}

/** The result of a humanTask whose timeout passed first: whatever was done, timedOut. */
function timedOutResult(instanceId: string, tasks: readonly Task[]): HumanTaskResult {
  const completions = tasks
    .filter((t) => t.status === "done")
    .sort((a, b) => (a.completedAt ?? 0) - (b.completedAt ?? 0))
    .map((t) => ({
      taskId: t.id,
      completedBy: t.completedBy ?? "",
      vars: t.vars,
      completedAt: t.completedAt ?? 0,
    }));
  return {
    instanceId,
    completedBy: null,
    vars: null,
    action: null,
    completions,
    cancelled: true,
    timedOut: true,
  };
}

function refOf(e: RunEvent): number | null {
  const d = e.data as { ref?: unknown } | null;
  return d !== null && typeof d === "object" && typeof d.ref === "number" ? d.ref : null;
}

function describe(type: string, name: string | null): string {
  return name === null ? type : `${type} '${name}'`;
}

function childResult(name: string, ev: RunEvent): unknown {
  const d = ev.data as { result?: unknown; failure?: WorkflowFailure };
  if (d.failure !== undefined) throw new ChildFailedError(name, d.failure);
  return d.result;
}

function stepResult<T>(name: string, ev: RunEvent): T {
  const d = ev.data as { result?: T; failure?: WorkflowFailure };
  if (d.failure !== undefined) throw new StepFailedError(name, d.failure);
  return d.result as T;
}

/** What replay will see: the JSON form of a value (Dates become strings, undefined stays). */
export function toJson(v: unknown): unknown {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

function isListed(e: unknown, list: StepOptions["nonRetryable"]): boolean {
  if (e instanceof NonRetryableError) return true;
  if (list === undefined || !(e instanceof Error)) return false;
  return list.some((x) => (typeof x === "string" ? e.name === x : e instanceof x));
}

/** Exponential backoff with "equal jitter": half fixed, half random. */
export function backoffDelay(p: Required<RetryPolicy>, attempt: number): number {
  const base = Math.min(
    toMs(p.maxInterval),
    toMs(p.initialInterval) * Math.pow(p.backoff, attempt - 1),
  );
  return Math.round(base / 2 + Math.random() * (base / 2));
}

async function runAttempt<T>(
  fn: StepFn<T>,
  idempotencyKey: string,
  attempt: number,
  timeoutMs: number | null,
  onCancel: (abort: () => void) => () => void,
): Promise<T> {
  // The AbortController is made only when the step reads `signal` (or it must be
  // aborted): most steps never do, and one per attempt was 1 % of the durable
  // bench's CPU.
  let ac: AbortController | undefined;
  const abort = (reason: Error) => (ac ??= new AbortController()).abort(reason);
  const info = {
    idempotencyKey,
    attempt,
    get signal(): AbortSignal {
      return (ac ??= new AbortController()).signal;
    },
  };
  const unsubscribe = onCancel(() => abort(new CancelledFailure()));
  let timer: NodeJS.Timeout | undefined;
  try {
    if (timeoutMs === null) return await fn(info);
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new StepTimeoutError(`attempt ${attempt} timed out after ${timeoutMs} ms`);
        reject(e);
        abort(e);
      }, timeoutMs);
    });
    return await Promise.race([Promise.resolve(fn(info)), timeout]);
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

/**
 * The store, with every rejected call turned into the halt `onError` returns:
 * the workflow code between ctx calls cannot catch a store outage and carry on
 * as if a step had failed (or, worse, record a failure), and a later call
 * throws the same halt.
 */
function haltingOnError(store: RunStore, onError: (e: unknown) => Halt): RunStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) =>
        (v as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((e: unknown) => {
          throw onError(e);
        });
    },
  });
}
