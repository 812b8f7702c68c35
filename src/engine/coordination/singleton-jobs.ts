/**
 * Background jobs that must run on one node at a time (cleanup of the
 * coordination tables). Every node starts the same runner; for each job, the
 * node holding lock `job:<name>` runs it every `intervalMs`, the others try
 * the lock each interval and skip the round when it is taken.
 *
 * The holder keeps the lock between rounds (extending it every lease/3)
 * rather than taking it per round: with a per-round lock every node would run
 * the job once per interval, one after another, multiplying the work by the
 * number of nodes. When the holder stops, it releases the lock and another
 * node takes over at its next round; when it dies, the lock ends with its
 * lease (or its database session), then the same.
 *
 * A holder that loses the lock mid-round (its lease ran out: paused process,
 * unreachable backend) sees the job's signal abort; a job that ignores it may
 * overlap the next holder's round, so jobs are written to be harmless twice
 * (bounded deletes of what is already dead).
 *
 * Failures are reported through `onError`, at most once per job per
 * `errorIntervalMs`, and never stop the runner or the node.
 */
import { SYSTEM_TENANT } from "./api-keys.ts";
import type { LockHandle, Locks } from "./locks-port.ts";

export interface SingletonJob {
  /** Names the lock (`job:<name>`) and the job in logs. */
  readonly name: string;
  readonly intervalMs: number;
  /** One round; `signal` aborts when the node stops or loses the lock. */
  run(signal: AbortSignal): Promise<unknown>;
}

export interface SingletonJobsOptions {
  locks: Locks;
  jobs: readonly SingletonJob[];
  /** How long a dead holder keeps the lock; default 30 s. */
  leaseMs?: number;
  /** Where failures go (e.g. the server's logger); rate-limited per job. */
  onError?: (job: string, error: Error, suppressed: number) => void;
  /** Per job, at most one reported failure per this; default 60 s. */
  errorIntervalMs?: number;
}

export interface SingletonJobs {
  /** Stops the rounds, waits for a running one, gives the locks back. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_ERROR_INTERVAL_MS = 60_000;

export const jobLockName = (job: string) => `job:${job}`;

export function startSingletonJobs(options: SingletonJobsOptions): SingletonJobs {
  const loops = options.jobs.map((job) => new JobLoop(job, options));
  loops.forEach((l) => l.start());
  let stopping: Promise<void> | undefined;
  return {
    stop: () => (stopping ??= Promise.all(loops.map((l) => l.stop())).then(() => undefined)),
  };
}

class JobLoop {
  private handle: LockHandle | null = null;
  private timer: NodeJS.Timeout | undefined;
  private renew: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private readonly stopped = new AbortController();
  private readonly leaseMs: number;
  private lastReport = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly job: SingletonJob,
    private readonly options: SingletonJobsOptions,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  start(): void {
    // The first round one interval after start: a starting node has enough to do.
    this.schedule(this.job.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    clearTimeout(this.timer);
    await this.round;
    clearInterval(this.renew);
    const handle = this.handle;
    this.handle = null;
    await handle?.release().catch((e: unknown) => this.report(e));
  }

  private schedule(ms: number): void {
    if (this.stopped.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.round = this.runRound()
        .catch((e: unknown) => this.report(e))
        .finally(() => {
          this.round = undefined;
          this.schedule(this.job.intervalMs);
        });
    }, ms);
    // A node with nothing else to do may exit; the jobs never keep it alive.
    this.timer.unref();
  }

  private async runRound(): Promise<void> {
    const handle = await this.holdLock();
    if (handle === null || this.stopped.signal.aborted) return;
    await this.job.run(AbortSignal.any([handle.signal, this.stopped.signal]));
  }

  /** The lock this node holds for the job, taking it if free; null when another node has it. */
  private async holdLock(): Promise<LockHandle | null> {
    if (this.handle !== null && !this.handle.signal.aborted) return this.handle;
    this.dropHandle();
    const handle = await this.options.locks.acquire(SYSTEM_TENANT, jobLockName(this.job.name), {
      waitMs: 0,
      leaseMs: this.leaseMs,
    });
    if (handle === null) return null;
    if (this.stopped.signal.aborted) {
      await handle.release();
      return null;
    }
    this.handle = handle;
    this.renew = setInterval(() => void this.extend(handle), Math.max(1, this.leaseMs / 3));
    this.renew.unref();
    return handle;
  }

  private async extend(handle: LockHandle): Promise<void> {
    try {
      // false: the lock is gone (lease passed, session lost); the next round tries again.
      if (!(await handle.extend(this.leaseMs)) && this.handle === handle) this.dropHandle();
    } catch (e) {
      // The backend is briefly away: retried at the next tick; the lease decides meanwhile.
      this.report(e);
    }
  }

  private dropHandle(): void {
    clearInterval(this.renew);
    this.renew = undefined;
    this.handle = null;
  }

  private report(e: unknown): void {
    const now = Date.now();
    const interval = this.options.errorIntervalMs ?? DEFAULT_ERROR_INTERVAL_MS;
    if (now - this.lastReport < interval) {
      this.suppressed++;
      return;
    }
    const suppressed = this.suppressed;
    this.lastReport = now;
    this.suppressed = 0;
    const error = e instanceof Error ? e : new Error(String(e));
    try {
      this.options.onError?.(this.job.name, error, suppressed);
    } catch {
      // A failing reporter must not stop the jobs either.
    }
  }
}
