/**
 * The history cursor: hands each ctx call its position (seq) in the run's
 * history and checks, on replay, that the call is the one recorded there —
 * the non-determinism check.
 *
 * Positions are taken synchronously when a call is made, so concurrent calls
 * (Promise.all) get the same positions on every replay. Completion events
 * (data.ref = their call's seq) are written past everything recorded and
 * skipped when positions are handed out, so a wait that ends never shifts the
 * positions of the calls after it.
 */
import {
  isCompletion,
  type CallEvent,
  type CompletionEvent,
  type RunEvent,
  type RunEventType,
} from "../../../domain/run-event.ts";
import {
  CancelledFailure,
  NonDeterminismError,
  NonRetryableError,
} from "../../../domain/workflow-failure.ts";
import type { Halts } from "../halts.ts";

/** Whether the run is compensating: a recorded cancellation then no longer ends calls. */
export interface ReplayMode {
  readonly compensating: boolean;
}

export class HistoryCursor {
  /** Recorded events by seq. */
  private readonly events = new Map<number, RunEvent>();
  /** Completion events by the seq of their call, in the order recorded. */
  private readonly completions = new Map<number, CompletionEvent[]>();
  private nextSeq: number;
  private highSeq: number;

  constructor(
    private readonly firstSeq: number,
    history: readonly RunEvent[],
    private readonly halts: Halts,
    private readonly mode: ReplayMode,
    /** Positions a generation may take (WF_RUN_MAX_HISTORY); 0: no cap. */
    private readonly maxEvents = 0,
  ) {
    this.nextSeq = firstSeq;
    this.highSeq = firstSeq - 1;
    for (const e of history) this.remember(e);
  }

  /** Adds an event read from the store or just written. */
  remember(e: RunEvent): void {
    if (isCompletion(e)) {
      const list = this.completions.get(e.data.ref);
      if (list === undefined) this.completions.set(e.data.ref, [e]);
      else list.push(e);
    }
    this.events.set(e.seq, e);
    if (e.seq > this.highSeq) this.highSeq = e.seq;
  }

  /** The position the next call will take, skipping completion events. */
  peek(): number {
    let s = this.nextSeq;
    for (let e = this.events.get(s); e !== undefined && isCompletion(e); e = this.events.get(s))
      s++;
    return s;
  }

  /**
   * Takes the next position for a call (after a halt, the call throws it
   * instead). A new position past the cap fails the call, and so the run unless
   * its code catches it: a replay of what was recorded never does.
   */
  next(): number {
    this.halts.check();
    const s = this.peek();
    if (this.maxEvents > 0 && s - this.firstSeq >= this.maxEvents && !this.events.has(s)) {
      throw new NonRetryableError(
        `the run's history reached ${this.maxEvents} events in this generation ` +
          `(WF_RUN_MAX_HISTORY): a long loop should continueAsNew`,
      );
    }
    this.nextSeq = s + 1;
    return s;
  }

  /** A position for a completion event written now: past everything recorded. */
  completionSeq(): number {
    const s = Math.max(this.highSeq + 1, this.nextSeq);
    this.highSeq = s;
    return s;
  }

  /**
   * The non-determinism check: the call event recorded at `seq` must be one of
   * `types` with this name; otherwise the code no longer makes the calls the
   * run made, and the run halts with a NonDeterminismError (it is blocked, not
   * failed, until fixed code is deployed). Undefined: nothing recorded there
   * yet, the call runs live. A cancellation recorded there ends the call.
   */
  match<T extends RunEventType>(
    seq: number,
    types: readonly T[],
    name: string | null,
  ): Extract<CallEvent, { type: T }> | undefined {
    const ev = this.events.get(seq);
    if (ev === undefined) return undefined;
    if (ev.type === "cancelled" && !this.mode.compensating) throw new CancelledFailure();
    if (isCompletion(ev) || !isOneOf(ev, types) || ev.name !== name) {
      const called = describe(types[0] ?? "call", name);
      throw this.halts.raise(new NonDeterminismError(seq, describe(ev.type, ev.name), called));
    }
    return ev;
  }

  /** Whatever is recorded at `seq`, unchecked (ctx.patched reads it to choose a path). */
  at(seq: number): RunEvent | undefined {
    return this.events.get(seq);
  }

  /** The latest completion event of the call at `seq`. */
  lastCompletion(seq: number): CompletionEvent | undefined {
    const list = this.completions.get(seq);
    return list?.[list.length - 1];
  }

  /** The first seq after everything seen or written (the next generation starts there). */
  get endSeq(): number {
    return Math.max(this.highSeq, this.nextSeq - 1) + 1;
  }

  /** Whether history already records this non-determinism (one event per distinct error). */
  hasBlock(message: string): boolean {
    const blocks = this.completions.get(-1) ?? [];
    return blocks.some((e) => e.type === "nondeterminism" && e.data.failure.message === message);
  }
}

function isOneOf<T extends RunEventType>(
  e: CallEvent,
  types: readonly T[],
): e is Extract<CallEvent, { type: T }> {
  const known: readonly RunEventType[] = types;
  return known.includes(e.type);
}

function describe(type: string, name: string | null): string {
  return name === null ? type : `${type} '${name}'`;
}
