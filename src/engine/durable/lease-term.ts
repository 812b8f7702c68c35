/**
 * Until when an execution may act on its lease, by the engine's clock.
 *
 * The store fences every write by the lease owner, but a step's function (or
 * an inbox assignment, a child start) has its effect before its write is
 * fenced. A node frozen past its lease (SIGSTOP, a long GC pause, a stalled
 * VM) and resumed would otherwise carry on where it stopped — a 200 ms timer
 * fires and the next step runs — although another node took the run over and
 * may have run that step already (chaos `node-stop`: 5 re-executed steps on
 * PostgreSQL, 4 on MariaDB; docs/chaos.md). So before each live side effect
 * the execution compares the clock with the end of the lease it last knew to
 * be held, and halts with LeaseLost once it has passed.
 */
import { LeaseLost, type Halts } from "./halts.ts";

export class LeaseTerm {
  /** `until`: the lease the claim (or the local start) got; `now`: the engine's clock. */
  constructor(
    private until: number,
    private readonly now: () => number,
  ) {}

  /** A term that never runs out (an execution without a worker: tests, tools). */
  static unbounded(now: () => number): LeaseTerm {
    return new LeaseTerm(Infinity, now);
  }

  get held(): boolean {
    return this.now() < this.until;
  }

  /**
   * A heartbeat found the run still held and extended its lease to `until`.
   * Only a term that has not run out yet is moved: once it ran out, any node
   * may have taken the run over, and a heartbeat cannot tell a lease held all
   * along from one this same worker claimed again afterwards (same owner), so
   * a lapsed execution is never revived; the run is replayed from history.
   */
  renew(until: number): void {
    if (this.held && until > this.until) this.until = until;
  }
}

/** Before a live side effect: throws the standing halt, or LeaseLost once the term ran out. */
export function checkHeld(halts: Halts, term: LeaseTerm): void {
  halts.check();
  if (!term.held) throw halts.raise(new LeaseLost());
}
