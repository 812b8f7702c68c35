/**
 * One call per key at a time: concurrent callers of the same key share the
 * first caller's promise (stampede protection — a hundred requests that miss
 * the same definition at the same revision make one store read, not a
 * hundred). The key includes the revision, so a caller that arrives after a
 * change never joins a read made before it.
 */
export class SingleFlight {
  private readonly flights = new Map<string, Promise<unknown>>();

  /** Whether `key`'s call is running (for tests and stats). */
  has(key: string): boolean {
    return this.flights.has(key);
  }

  /** Runs `fn` unless a call for `key` is running; `joined` tells a caller it shared one. */
  run<T>(key: string, fn: () => Promise<T>): { promise: Promise<T>; joined: boolean } {
    const running = this.flights.get(key);
    if (running !== undefined) return { promise: running as Promise<T>, joined: true };
    const promise = fn().finally(() => this.flights.delete(key));
    this.flights.set(key, promise);
    return { promise, joined: false };
  }
}
