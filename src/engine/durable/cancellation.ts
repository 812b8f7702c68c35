/**
 * Cancellation of a run: the flag the worker sets when a heartbeat sees
 * cancel_requested, and the in-memory waits it cuts short. Cancellation reaches
 * workflow code at its next ctx call (CancelledFailure), and a running step
 * through its `signal`; compensations run to the end regardless.
 */
export class Cancellation {
  /** Set while compensations run: they are not cancelled. */
  compensating = false;
  private readonly sleepers = new Set<() => void>();

  constructor(private flag: boolean) {}

  get requested(): boolean {
    return this.flag;
  }

  /** Whether a ctx call made now must end cancelled. */
  get cancelling(): boolean {
    return this.flag && !this.compensating;
  }

  request(): void {
    this.flag = true;
    this.wake();
  }

  /** In-memory waits and running steps look again (cancel requested, or the run halted). */
  wake(): void {
    for (const w of this.sleepers) w();
  }

  /** Resolves after ms, or early when woken. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  /**
   * Tells a running step attempt about a cancel request (its `signal` aborts);
   * returns the unsubscribe. Not during compensation: compensations run to the end.
   */
  readonly abortOnCancel = (abort: () => void): (() => void) => {
    if (this.compensating) return () => undefined;
    if (this.flag) {
      abort();
      return () => undefined;
    }
    const w = () => {
      if (this.flag && !this.compensating) abort();
    };
    this.sleepers.add(w);
    return () => this.sleepers.delete(w);
  };
}
