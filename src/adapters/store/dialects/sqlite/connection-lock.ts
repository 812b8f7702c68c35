/**
 * The lock on the one SQLite connection of the group-committing driver.
 *
 * Whoever holds it may run statements: a logical transaction holds it from
 * its SAVEPOINT to its RELEASE / ROLLBACK TO, an autocommit statement for the
 * one synchronous call, the group commit for its COMMIT. Waiters are served in
 * arrival order (the lock is handed over, so nobody can barge in between a
 * release and the waiter's continuation), except the group commit, which goes
 * to the front: a batch is committed at the latest when the logical
 * transaction that is mid-flight ends, so it cannot grow behind an
 * ever-refilled queue.
 *
 * `tryAcquire` takes a free lock synchronously: an uncontended statement
 * costs no promise and no extra microtask.
 *
 * Once the connection has been used for TURN_BUDGET_MS in one turn of the
 * event loop (see turn-budget.ts), the lock is not taken or handed over
 * synchronously any more: the next holder gets it on the next turn, so the
 * loop can accept connections and read sockets in between. Order is kept: a
 * lock waiting for that turn counts as held.
 */
import { TurnBudget } from "./turn-budget.ts";

/**
 * How long one event-loop turn may hold the connection before the next holder
 * waits for the next turn. 5 ms: with 200 busy keep-alive connections
 * (2026-12-01, 2 shared cores) the server ran 11–82 loop iterations per CPU
 * second without a budget, 102–133 with 5 ms, 59–68 with 10 ms, 85–198 with
 * 2 ms; requests per CPU second rose from ~2,200 to ~3,300 at 5 ms (batches
 * form now). Each iteration accepts one new connection, so this is the
 * accept rate a busy node keeps.
 */
export const TURN_BUDGET_MS = 5;

export class ConnectionLock {
  #held = false;
  readonly #waiters: (() => void)[] = [];
  readonly #turn: TurnBudget;

  constructor(turnBudgetMs = TURN_BUDGET_MS) {
    this.#turn = new TurnBudget(turnBudgetMs);
  }

  /** Somebody is queued: the holder is not the last user for now. */
  get hasWaiters(): boolean {
    return this.#waiters.length > 0;
  }

  tryAcquire(): boolean {
    if (this.#held || this.#turn.spent()) return false;
    this.#held = true;
    return true;
  }

  /** Resolves once the caller holds the lock. */
  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    const held = new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (!this.#held) this.#handOverNextTurn(); // free, but this turn's budget is spent
    return held;
  }

  /**
   * Like `acquire`, but ahead of every waiter, and not deferred by the budget
   * when the lock is free: it is the group COMMIT, one statement that
   * delivers every member of the batch.
   */
  acquireFirst(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.unshift(resolve));
  }

  release(): void {
    if (this.#waiters.length === 0) this.#held = false;
    else if (this.#turn.spent()) this.#handOverNextTurn();
    else this.#waiters.shift()!(); // handed over: #held stays true
  }

  /** The lock stays held until the first waiter takes it on the next turn. */
  #handOverNextTurn(): void {
    this.#held = true;
    setImmediate(() => {
      const next = this.#waiters.shift();
      if (next === undefined) this.#held = false;
      else next();
    });
  }
}
