/**
 * One completion statement at a time per process tree, within this process.
 *
 * Why: the three parallel completions of a REST cycle all row-lock the same
 * root. Sent at once, two of them wait inside PostgreSQL — a lock wait (sleep,
 * wake-up, deadlock timer) and then a re-check of the statement on the newer
 * row versions (EvalPlanQual). Measured at c=32 (2026-11-30, /proc CPU per
 * request type): a completion cost PostgreSQL 0.61 ms when the completions of
 * one referral raced, 0.43 ms when they did not. Queued here instead, each
 * statement finds the root unlocked and a pool connection is not held by a
 * statement that only waits.
 *
 * This is only a queue: the root row lock still orders completions across
 * processes and nodes, and every guarantee rests on it, not on this.
 */
export class TreeTurns {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(tenantId: string, rootId: string, fn: () => Promise<T>): Promise<T> {
    const key = `${tenantId}\u0000${rootId}`;
    const previous = this.tails.get(key);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    // `previous` never rejects: every turn resolves its promise in `finally`.
    const tail = previous === undefined ? mine : previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      if (previous !== undefined) await previous;
      return await fn();
    } finally {
      done();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Trees with a completion running or queued (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
