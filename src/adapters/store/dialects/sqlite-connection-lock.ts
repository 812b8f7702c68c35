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
 */
export class ConnectionLock {
  #held = false;
  readonly #waiters: (() => void)[] = [];

  /** Somebody is queued: the holder is not the last user for now. */
  get hasWaiters(): boolean {
    return this.#waiters.length > 0;
  }

  tryAcquire(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  /** Resolves once the caller holds the lock. */
  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Like `acquire`, but ahead of every waiter. */
  acquireFirst(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.unshift(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next === undefined) this.#held = false;
    else next(); // handed over: #held stays true
  }
}
