/**
 * How long the SQLite connection may be used in one turn of the event loop.
 *
 * Why: better-sqlite3 runs every statement synchronously on the event loop,
 * and Node 20's libuv accepts at most ONE new connection per loop iteration
 * (libuv ≥ 1.45 stopped accepting in a loop). With 200 busy keep-alive
 * connections every iteration ran the handlers and the SQL of every request
 * that had arrived — 90–250 ms — so the server accepted 4–12 new connections
 * per second and a /healthz on a fresh connection waited 5–29 s in the
 * kernel's accept queue. Bounding the SQL per turn keeps the iterations
 * short: past the budget, the connection lock is handed over on the next
 * turn (setImmediate), and the loop polls for I/O — accepts, reads, writes —
 * in between.
 *
 * A turn starts at the first `spent()` call in a macrotask and ends at the
 * next check phase (a setImmediate armed then), so a loop iteration gets at
 * most two budgets: one in the poll phase and one in the check phase.
 */
export class TurnBudget {
  #open = false;
  #startedAt = 0;

  constructor(private readonly budgetMs: number) {}

  /** True when the current turn has used the connection longer than the budget. */
  spent(): boolean {
    const now = performance.now();
    if (!this.#open) {
      this.#open = true;
      this.#startedAt = now;
      setImmediate(() => (this.#open = false));
      return false;
    }
    return now - this.#startedAt > this.budgetMs;
  }
}
