/**
 * Halts: thrown through workflow code to unwind it, never recorded. The run
 * remembers the strongest halt, so workflow code that catches one changes
 * nothing: every later ctx call throws it again and the executor reads it.
 */
import { NonDeterminismError } from "../../domain/workflow-failure.ts";

export class HaltSignal extends Error {}

/** Every ctx call is parked: the run waits for `wakeAt` or one of the signals. */
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

/** Another worker holds the run now: nothing more may be written. */
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

/**
 * Which halt decides when several happen (concurrent calls): the one that
 * forbids more. A store failure and a lost lease allow no write at all; a
 * non-determinism blocks the run; continue-as-new ends the generation; a
 * suspension only parks it.
 */
function rank(h: Halt | undefined): number {
  if (h instanceof StoreFailed) return 5;
  if (h instanceof LeaseLost) return 4;
  if (h instanceof NonDeterminismError) return 3;
  if (h instanceof ContinueAsNew) return 2;
  if (h instanceof Suspend) return 1;
  return 0;
}

/** The run's halt, once there is one. */
export class Halts {
  current: Halt | undefined;

  /** `wakeSleepers`: in-memory waits look again (see raiseQuietly). */
  constructor(private readonly wakeSleepers: () => void) {}

  /** Records `h` unless a stronger halt stands; returns the halt that stands, to throw. */
  raise(h: Halt): Halt {
    if (rank(h) > rank(this.current)) this.current = h;
    return this.current ?? h;
  }

  /**
   * A halt that no ctx call throws (a background marker write, the worker's
   * heartbeat, a suspension): waits sleeping in memory are woken so they see it.
   */
  raiseQuietly(h: Halt): Halt {
    const standing = this.raise(h);
    this.wakeSleepers();
    return standing;
  }

  check(): void {
    if (this.current !== undefined) throw this.current;
  }
}
