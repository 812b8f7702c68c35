/**
 * What the SQL and Redis locks share: the checks of acquire()'s input, the
 * waiting loop, and a held lock's life (lease timer, signal, one-way end).
 *
 * A grant ends exactly once, whichever comes first: release(), the lease
 * running out without extend(), the backend saying the lock is gone (extend
 * found it taken or the session dropped), or close(). Only the ends that are
 * not release() abort the signal: a holder that gave the lock up knows.
 */
import { taskflowError } from "../../domain/errors.ts";
import type { AcquireOptions, LockHandle } from "../../engine/coordination/locks-port.ts";
import { DEFAULT_LOCK_LEASE_MS, DEFAULT_LOCK_WAIT_MS } from "../../engine/coordination/limits.ts";
import { checkDuration, checkKey, checkTenant } from "./check-input.ts";

export interface LockRequest {
  waitMs: number;
  leaseMs: number;
}

/** acquire()'s input, checked the same on every backend; throws Validation. */
export function checkAcquire(tenant: string, name: string, options?: AcquireOptions): LockRequest {
  checkTenant(tenant);
  checkKey("lock name", name);
  const waitMs = options?.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const leaseMs = options?.leaseMs ?? DEFAULT_LOCK_LEASE_MS;
  checkDuration("waitMs", waitMs, true);
  checkDuration("leaseMs", leaseMs);
  return { waitMs, leaseMs };
}

/** isCurrent()'s input; throws Validation. */
export function checkIsCurrent(tenant: string, name: string, token: bigint): void {
  checkTenant(tenant);
  checkKey("lock name", name);
  if (typeof token !== "bigint")
    throw taskflowError("InvalidArgument", { detail: "token must be a bigint" });
}

/** Between two tries at a held lock: 20–60 ms, jittered so waiters do not move in step. */
const pollDelay = () => 20 + Math.floor(Math.random() * 40);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `attempt` until it grants a lock or `waitMs` has passed (waitMs 0:
 * once). `attempt` resolves null when the lock is held elsewhere; its errors
 * (unavailable, closed) end the wait at once.
 */
export async function tryUntil<T>(
  waitMs: number,
  attempt: () => Promise<T | null>,
): Promise<T | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const got = await attempt();
    if (got !== null) return got;
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(left, pollDelay()));
  }
}

/** What a backend does for one grant. */
export interface HeldAtBackend {
  /** The holder is alive: resolves false when the backend no longer holds the lock. */
  extend(leaseMs: number): Promise<boolean>;
  /** Gives the lock back at the backend. */
  release(): Promise<void>;
}

export class LeasedLock implements LockHandle {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #ended = false;

  /**
   * `grantedAt`: when the request that took the lock was sent, so the local
   * lease ends no later than the backend's. `onEnd` runs once, after the
   * backend was told (or could not be), for the caller's own bookkeeping.
   */
  constructor(
    readonly tenant: string,
    readonly name: string,
    readonly token: bigint,
    leaseMs: number,
    grantedAt: number,
    private readonly backend: HeldAtBackend,
    private readonly onEnd: () => void,
  ) {
    this.signal = this.#controller.signal;
    this.#leaseMs = leaseMs;
    this.#arm(grantedAt + leaseMs);
  }

  get ended(): boolean {
    return this.#ended;
  }

  #arm(until: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      () => void this.lose("its lease ran out without extend()", true),
      Math.max(0, until - Date.now()),
    );
    this.#timer.unref();
  }

  /**
   * The lock is gone, or must be: aborts the signal. `giveBack`: the backend
   * may still hold it (a lease that ran out locally), so tell it; otherwise
   * the backend has already let it go (dropped session, extend found it gone).
   */
  lose(why: string, giveBack: boolean): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#controller.abort(new Error(`lock '${this.name}' lost: ${why}`));
    if (!giveBack) {
      this.onEnd();
      return Promise.resolve();
    }
    return this.backend
      .release()
      .catch(() => undefined)
      .finally(() => this.onEnd());
  }

  async extend(leaseMs: number = this.#leaseMs): Promise<boolean> {
    checkDuration("leaseMs", leaseMs);
    if (this.#ended) return false;
    const sentAt = Date.now();
    // An unavailable backend rejects; the lease timer keeps running meanwhile.
    const held = await this.backend.extend(leaseMs);
    if (this.#ended) return false;
    if (!held) {
      await this.lose("the backend no longer holds it", false);
      return false;
    }
    this.#arm(sentAt + leaseMs);
    return true;
  }

  async release(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    try {
      await this.backend.release();
    } finally {
      this.onEnd();
    }
  }
}
