/**
 * A worker: claims runnable runs with leases, executes them (at most
 * `maxConcurrent` at once), heartbeats its leases and learns about
 * cancellation and lost leases from the heartbeat. Runs whose lease expired
 * (a dead worker) are runnable again, so any live worker takes them over.
 *
 * Wake-ups: `notify()` (a run started or signalled in this process, or a
 * database notification such as PostgreSQL LISTEN/NOTIFY) claims at once;
 * otherwise the worker polls every `pollMs`, which also fires due timers.
 */
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Run } from "../../domain/run.ts";
import type { ContextOptions, RunContext } from "./context.ts";
import { executeRun, type Outcome } from "./executor.ts";
import { LeaseTerm } from "./lease-term.ts";
import type { WorkflowRegistry } from "./registry.ts";
import type { Lease, RunStore } from "./run-store-port.ts";
import { ServedRecorder } from "./served-recorder.ts";
import type { Wakeups } from "./wakeups-port.ts";

export interface WorkerOptions {
  /** Unique per process; default host:pid:random. */
  owner?: string;
  /** Lease length (default 5 s): a dead worker's runs are taken over after this. */
  leaseMs?: number;
  /** Heartbeat period (default 1.5 s). */
  heartbeatMs?: number;
  /** Concurrent runs per worker (default 64). */
  maxConcurrent?: number;
  /** Poll period when nothing notifies (default 500 ms). */
  pollMs?: number;
  contextOptions?: Partial<ContextOptions>;
  now?: () => number;
  /** Told about runs that finish or fail unexpectedly (logging). */
  onOutcome?: (run: Run, outcome: Outcome | Error) => void;
  /**
   * Told when a claim, a heartbeat or the record of its served workflows
   * failed (the store is unreachable): the worker keeps going, retrying claims
   * with backoff (logging).
   */
  onError?: (what: "claim" | "heartbeat" | "served-workflows", error: Error) => void;
  /** How often the worker refreshes the names it serves in the store (default 5 min). */
  servedRefreshMs?: number;
  /** The code steps it serves too (the interpreter's registerStep), recorded with its workflows. */
  servedSteps?: () => readonly string[];
}

/**
 * After a failed claim the next one waits pollMs, doubling with every further
 * failure up to this: a database down for a minute costs ~15 attempts, not
 * 120, and one coming back is noticed within 5 s (or at once, on a notify).
 */
const MAX_CLAIM_BACKOFF_MS = 5_000;

interface Active {
  ctx: RunContext | undefined;
  cancel: boolean;
  lost: boolean;
  term: LeaseTerm;
  /**
   * The same run, claimed again while this execution still runs (its lease ran
   * out by the clock, e.g. the process was frozen): started once this one settled.
   */
  next: { run: Run; term: LeaseTerm } | undefined;
}

export function defaultOwner(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

export class Worker {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  readonly maxConcurrent: number;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly active = new Map<string, Active>();
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private dirty = false;
  /**
   * True when the last claim could not take every runnable run (it filled all
   * free slots, or there were none). Only then does a finished run trigger an
   * immediate claim; otherwise that claim finds nothing (measured: 0.98 empty
   * claims per workflow, the dearest non-commit statement on SQLite) and new
   * work arrives by local start, NOTIFY or the poll anyway.
   */
  private mayHaveBacklog = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => Promise<void>) | undefined;
  private idleWaiters: (() => void)[] = [];
  /** Slots reserved by local starts that have not been handed a run yet. */
  private reserved = 0;
  /** Claims that failed in a row; 0 after a successful one. */
  private claimFailures = 0;
  /** Runs whose execution ended lost, to release before the next claim (see releaseLapsed). */
  private readonly lapsed = new Map<string, Lease>();
  /** Tells nodes without this code which workflows it runs (served-workflows.ts). */
  private readonly served: ServedRecorder;

  constructor(
    private readonly store: RunStore,
    private readonly registry: WorkflowRegistry,
    private readonly options: WorkerOptions = {},
    private readonly wakeups?: Wakeups,
  ) {
    this.owner = options.owner ?? defaultOwner();
    this.leaseMs = options.leaseMs ?? 5_000;
    this.heartbeatMs = options.heartbeatMs ?? 1_500;
    this.maxConcurrent = options.maxConcurrent ?? 64;
    this.pollMs = options.pollMs ?? 500;
    this.now = options.now ?? Date.now;
    this.served = new ServedRecorder(store, this.owner, () => registry.names(), {
      everyMs: options.servedRefreshMs,
      now: this.now,
      onError: (e) => this.report("served-workflows", e),
      steps: options.servedSteps,
    });
  }

  /** Between start() and stop(): its claim loop polls for runs (a worker's readiness). */
  get polling(): boolean {
    return this.running;
  }

  get activeCount(): number {
    return this.active.size;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.wakeups) this.unsubscribe = await this.wakeups.subscribe(() => this.notify());
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.heartbeatMs);
    this.heartbeatTimer.unref();
    this.loop = this.claimLoop();
    await this.served.start();
  }

  /** Stops claiming, waits for the runs in hand (up to `graceMs`), then returns. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.served.stop();
    this.notify();
    await this.loop;
    if (this.unsubscribe) await this.unsubscribe();
    const deadline = this.now() + graceMs;
    while (this.active.size > 0 && this.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    clearInterval(this.heartbeatTimer);
  }

  /** Something became runnable: claim now instead of at the next poll. */
  notify(): void {
    this.dirty = true;
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Resolves when no run is in hand (tests, benchmarks). */
  idle(): Promise<void> {
    if (this.active.size === 0 && this.reserved === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * For a local start: reserves a slot so the new run can be inserted already
   * leased to this worker and executed without a claim. False when full.
   */
  reserve(): { owner: string; until: number } | undefined {
    if (!this.running || this.active.size + this.reserved >= this.maxConcurrent) return undefined;
    this.reserved++;
    return { owner: this.owner, until: this.now() + this.leaseMs };
  }

  /** Hands over a run inserted with the reserved lease (or gives the slot back with undefined). */
  adopt(run: Run | undefined): void {
    this.reserved--;
    if (run !== undefined) this.launch(run, true, run.leaseUntil ?? this.now() + this.leaseMs);
    else this.checkIdle();
  }

  private async claimLoop(): Promise<void> {
    while (this.running) {
      this.dirty = false;
      const claimedAll = await this.claimOnce();
      if (!this.running) break;
      if (this.claimFailures === 0 && (claimedAll || this.dirty)) continue;
      await this.pause(this.claimFailures === 0 ? this.pollMs : this.backoffMs());
    }
  }

  /** One claim into the free slots; true when it filled them all. Never throws. */
  private async claimOnce(): Promise<boolean> {
    await this.releaseLapsed();
    const free = this.maxConcurrent - this.active.size - this.reserved;
    this.mayHaveBacklog = free <= 0;
    if (free <= 0) return false;
    try {
      const now = this.now();
      const runs = await this.store.claimRuns(
        this.owner,
        now,
        now + this.leaseMs,
        free,
        this.registry.names(),
      );
      this.claimFailures = 0;
      for (const r of runs) this.launch(r, false, now + this.leaseMs);
      this.mayHaveBacklog = runs.length === free;
      return this.mayHaveBacklog;
    } catch (e) {
      this.claimFailures++;
      this.report("claim", e);
      return false;
    }
  }

  /**
   * An execution that ended lost may have stopped only because its lease ran
   * out by the clock (lease-term.ts) while the store still names this worker
   * the owner: nobody took the run over, and the heartbeat, which extends every
   * run of the owner, would keep it so for ever. Releasing it (fenced by the
   * owner: a no-op when another worker holds it) lets any worker replay it.
   * Done here, between claims, so that a release never races with a claim of
   * this worker that takes the same run again (launch() drops it from the list).
   */
  private async releaseLapsed(): Promise<void> {
    for (const [k, lease] of [...this.lapsed]) {
      if (this.active.has(k)) continue;
      try {
        await this.store.release(lease, this.now());
        this.lapsed.delete(k);
      } catch (e) {
        this.report("claim", e); // kept for the next round
      }
    }
  }

  private backoffMs(): number {
    return Math.min(this.pollMs * 2 ** (this.claimFailures - 1), MAX_CLAIM_BACKOFF_MS);
  }

  /** Waits `ms`, or until notify(). */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }

  /** A throwing hook must not stop a loop or reject a promise nobody awaits. */
  private report(what: "claim" | "heartbeat" | "served-workflows", e: unknown): void {
    try {
      this.options.onError?.(what, asError(e));
    } catch {
      // The hook is for logging; its own failure is not the worker's.
    }
  }

  private tell(run: Run, outcome: Outcome | Error): void {
    try {
      this.options.onOutcome?.(run, outcome);
    } catch {
      // As in report().
    }
  }

  private launch(run: Run, fresh: boolean, leaseUntil: number): void {
    const k = `${run.tenantId}\u0000${run.id}`;
    this.lapsed.delete(k);
    const term = new LeaseTerm(leaseUntil, this.now);
    const running = this.active.get(k);
    if (running !== undefined) {
      // Claimed again while still executing here: its lease ran out (the process was
      // frozen past it), so the claim found it runnable. Two executions under one owner
      // are not told apart by the fence: the old one could record a step after the new
      // one loaded history, and the new one would run it again (chaos `node-stop`).
      // The old one stops at its next ctx call; the new one starts once it settled.
      running.lost = true;
      running.ctx?.loseLease();
      running.next = { run, term };
      return;
    }
    this.execute(k, run, fresh, term);
  }

  private execute(k: string, run: Run, fresh: boolean, term: LeaseTerm): void {
    const entry: Active = { ctx: undefined, cancel: false, lost: false, term, next: undefined };
    this.active.set(k, entry);
    let lost = false;
    executeRun(run, {
      store: this.store,
      registry: this.registry,
      owner: this.owner,
      fresh,
      term,
      contextOptions: { now: this.now, ...this.options.contextOptions },
      onContext: (ctx) => {
        entry.ctx = ctx;
        if (ctx && entry.cancel) ctx.requestCancel();
        if (ctx && entry.lost) ctx.loseLease();
      },
    })
      .then(
        (outcome) => {
          lost = outcome === "lost";
          this.tell(run, outcome);
        },
        async (e: unknown) => {
          this.tell(run, asError(e));
          // Claimed again meanwhile (see launch): the lease is the next execution's.
          if (entry.next !== undefined) return;
          await this.store
            .release({ tenantId: run.tenantId, runId: run.id, owner: this.owner }, this.now())
            .catch(() => undefined);
        },
      )
      .finally(() => {
        this.active.delete(k);
        const next = entry.next;
        if (next !== undefined) return this.execute(k, next.run, false, next.term);
        if (lost) this.lapsed.set(k, { tenantId: run.tenantId, runId: run.id, owner: this.owner });
        // A lapsed run is released by the next claim round, and a finished child has just
        // made its parent runnable: either way claim now, not at the next poll.
        if (lost || this.mayHaveBacklog || run.parentRunId !== null) this.notify();
        this.checkIdle();
      });
  }

  private checkIdle(): void {
    if (this.active.size === 0 && this.reserved === 0) {
      const ws = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of ws) w();
    }
  }

  private async heartbeat(): Promise<void> {
    if (this.active.size === 0) return;
    try {
      const now = this.now();
      // Only runs already active when the heartbeat is sent can be judged by its
      // answer: a run started locally while the query is in flight is missing
      // from it, and marking that run lost stalled it until the worker went idle
      // (found by `npm run bench -- durable`: 1 of 2,000 runs took 8 s).
      const asked = [...this.active];
      const until = now + this.leaseMs;
      const held = await this.store.heartbeat(this.owner, now, until);
      const byKey = new Map(held.map((h) => [`${h.tenantId}\u0000${h.id}`, h]));
      for (const [k, entry] of asked) {
        if (this.active.get(k) !== entry) continue; // finished meanwhile
        const h = byKey.get(k);
        if (h === undefined) {
          // Not (or no longer) ours; a run between claim and first write is fine to drop too.
          entry.lost = true;
          entry.ctx?.loseLease();
          continue;
        }
        // Renews only a term still running when the answer arrives (see LeaseTerm.renew).
        entry.term.renew(until);
        entry.next?.term.renew(until);
        if (h.cancelRequested && !entry.cancel) {
          entry.cancel = true;
          entry.ctx?.requestCancel();
        }
      }
    } catch (e) {
      // The database is unreachable: leases run out and other workers take over.
      this.report("heartbeat", e);
    }
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
