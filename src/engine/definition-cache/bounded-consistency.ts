/**
 * The bounded consistency mode: a node keeps the ledger state of both views
 * (`data`, `routes`) in memory and answers `state()` from it, so a cache hit
 * costs no query. The copy is refreshed — both views, one `readState` each —
 *
 * - when another node publishes that the ledger moved (the RevisionSignal:
 *   PostgreSQL NOTIFY or Redis pub/sub; usually within milliseconds);
 * - every `pollMs` (WF_DEFINITION_CACHE_POLL) after the last refresh began,
 *   whatever the signal does: the poll is what the bound rests on, since a
 *   message can be lost (a listener reconnecting, MariaDB without Redis);
 * - by `changed()`, on the node that began or completed a fence, before the
 *   writer goes on: a node always sees its own changes at once.
 *
 * Refreshes are coalesced: one runs at a time and at most one waits behind
 * it. Whoever asks for a refresh gets one that BEGAN after it asked (it joins
 * the waiting one, never the running one, which may have read the ledger
 * before the change it was told about).
 *
 * The bound. A change (a fence begun, or completed) committed at time c on
 * another node is in every state this node answers from c + pollMs + one
 * ledger round trip on (the refresh that begins at most pollMs after c, plus
 * its time to answer; one more round trip if a refresh was running then).
 * With the push it is the message's latency plus one round trip. So a fence
 * begun elsewhere makes this node bypass, and a completion moves its
 * revision, within that bound. Whatever happens to timers (a stalled event
 * loop) or to a refresh (a ledger that does not answer), no state is ever
 * answered from a copy read more than 2 × pollMs earlier (MAX_AGE_FACTOR): an
 * older copy is not used, the caller waits for a fresh read instead.
 *
 * What is never answered from memory: before start() and after close(), and
 * after a refresh failed, until one succeeds. Then `state()` reads the ledger
 * itself (through a coalesced refresh that begins after the call) and rejects
 * when that fails — the ledger unreachable is an error to the caller, never
 * a state made up or kept from before the outage.
 *
 * Why the copy is safe to cache under: a revision in memory was read after the
 * change that made it committed, and the read path's store read (its factory)
 * begins after it got that revision, so it cannot return data older than the
 * revision it is keyed by. What a lagging node may do is serve a payload of
 * the previous revision, or fill the previous revision's key with data read
 * after a change — newer data under a key that only lagging nodes still use —
 * both only within the bound.
 */
import type { CacheConsistency } from "./cache-consistency.ts";
import type { CacheLedger, LedgerState, RevisionView } from "./cache-ledger-port.ts";
import type { CacheWarnLog } from "./cache-provider-port.ts";
import type { RevisionSignal } from "./revision-signal-port.ts";

/** A copy read longer ago than this many poll intervals is never answered. */
export const MAX_AGE_FACTOR = 2;

/** Schedules `fn` once after `ms`; returns what cancels it. */
export type SetTimer = (fn: () => void, ms: number) => () => void;

export interface BoundedConsistencyOptions {
  readonly ledger: Pick<CacheLedger, "readState">;
  readonly signal: RevisionSignal;
  /** WF_DEFINITION_CACHE_POLL: the longest time between two refreshes. */
  readonly pollMs: number;
  readonly log: CacheWarnLog;
  /** setTimeout (unref'd: the poll alone never keeps a process alive) unless a test passes its own. */
  readonly setTimer?: SetTimer | undefined;
  /** A monotonic clock in ms (performance.now unless a test passes its own). */
  readonly now?: (() => number) | undefined;
}

/** What one refresh read: both views, and when the read began. */
interface Snapshot {
  readonly data: LedgerState;
  readonly routes: LedgerState;
  readonly readAt: number;
}

const defaultSetTimer: SetTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

const causeOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function boundedConsistency(options: BoundedConsistencyOptions): CacheConsistency {
  return new BoundedConsistency(options);
}

class BoundedConsistency implements CacheConsistency {
  readonly mode = "bounded" as const;
  private readonly setTimer: SetTimer;
  private readonly now: () => number;
  private readonly maxAgeMs: number;
  /** The last successful refresh's result; undefined before it and after a failed one. */
  private copy: Snapshot | undefined;
  /** Between start() and close(): the only time the copy is answered. */
  private live = false;
  /** start() was called, or close(): either way start() does nothing (again). */
  private started = false;
  private running: Promise<Snapshot> | undefined;
  private waiting: Deferred<Snapshot> | undefined;
  private cancelPoll: (() => void) | undefined;
  /** Whether the last refresh failed (to log only the changes between failing and answering). */
  private failing = false;

  constructor(private readonly o: BoundedConsistencyOptions) {
    if (!Number.isFinite(o.pollMs) || o.pollMs <= 0) {
      throw new RangeError(`pollMs must be a positive number of milliseconds, not ${o.pollMs}`);
    }
    this.setTimer = o.setTimer ?? defaultSetTimer;
    this.now = o.now ?? (() => performance.now());
    this.maxAgeMs = MAX_AGE_FACTOR * o.pollMs;
  }

  async state(view: RevisionView): Promise<LedgerState> {
    const copy = this.usableCopy();
    if (copy !== undefined) return copy[view];
    return (await this.refresh())[view];
  }

  async changed(): Promise<void> {
    try {
      await this.refresh();
    } catch {
      // Logged by the refresh; until one succeeds every state() reads the ledger itself.
    }
    try {
      await this.o.signal.publish();
    } catch (e) {
      // A signal must not reject for an outage; one that does is still only a nudge.
      this.o.log.warn({ cause: causeOf(e) }, "definition cache: publishing a change failed");
    }
  }

  async start(): Promise<void> {
    // Once only, and never after close().
    if (this.started) return;
    this.started = true;
    this.live = true;
    // Listening first: a change after the first read below is then either heard or polled.
    try {
      await this.o.signal.start(() => this.refreshInBackground());
    } catch (e) {
      this.o.log.warn(
        { cause: causeOf(e), signal: this.o.signal.kind },
        "definition cache: the revision signal did not start; other nodes' changes are seen at the poll",
      );
    }
    if (!this.live) return; // closed meanwhile
    this.schedulePoll();
    try {
      await this.refresh();
    } catch {
      // Logged by the refresh; state() reads the ledger itself until the poll succeeds.
    }
  }

  async close(): Promise<void> {
    this.started = true;
    this.live = false;
    this.cancelPoll?.();
    this.cancelPoll = undefined;
    await this.o.signal.close();
  }

  /** The copy, when it may be answered: live, the last refresh succeeded, read recently enough. */
  private usableCopy(): Snapshot | undefined {
    const copy = this.copy;
    if (!this.live || copy === undefined) return undefined;
    return this.now() - copy.readAt <= this.maxAgeMs ? copy : undefined;
  }

  private refreshInBackground(): void {
    this.refresh().catch(() => undefined); // logged by the refresh
  }

  /** A refresh that begins after this call (the waiting one, or a new one when none runs). */
  private refresh(): Promise<Snapshot> {
    if (this.running === undefined) return this.begin();
    this.waiting ??= deferred<Snapshot>();
    return this.waiting.promise;
  }

  private begin(): Promise<Snapshot> {
    if (this.live) this.schedulePoll(); // the next poll is pollMs after this read began
    const p = this.read();
    this.running = p;
    const settled = () => {
      this.running = undefined;
      const next = this.waiting;
      this.waiting = undefined;
      if (next !== undefined) this.begin().then(next.resolve, next.reject);
    };
    p.then(settled, settled);
    return p;
  }

  private async read(): Promise<Snapshot> {
    const readAt = this.now();
    try {
      const [data, routes] = await Promise.all([
        this.o.ledger.readState("data"),
        this.o.ledger.readState("routes"),
      ]);
      const copy: Snapshot = { data, routes, readAt };
      this.copy = copy;
      if (this.failing) {
        this.failing = false;
        this.o.log.warn(
          {},
          "definition cache: the ledger answers again; reads use its state again",
        );
      }
      return copy;
    } catch (e) {
      this.copy = undefined;
      if (!this.failing) {
        this.failing = true;
        this.o.log.warn(
          { cause: causeOf(e) },
          "definition cache: the ledger could not be read; every cached read asks it until it answers",
        );
      }
      throw e;
    }
  }

  private schedulePoll(): void {
    this.cancelPoll?.();
    this.cancelPoll = this.setTimer(() => {
      this.cancelPoll = undefined;
      if (this.live) this.refreshInBackground();
    }, this.o.pollMs);
  }
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
  readonly reject: (e: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
