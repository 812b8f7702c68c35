/**
 * Locks inside one process. A grant is a map entry with a lease timer; when
 * the lease passes without extend() the holder loses the lock (its signal
 * aborts) and waiters are woken. Tokens count grants per (tenant, name) for
 * the life of the process.
 */
import type { AcquireOptions, LockHandle, Locks } from "../../../engine/coordination/locks-port.ts";
import { checkDuration } from "../check-input.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { checkAcquire, checkIsCurrent } from "../lock-handle.ts";

interface Grant {
  readonly token: bigint;
  readonly controller: AbortController;
  timer: NodeJS.Timeout;
}

export function memoryLocks(ctx: MemoryContext): Locks {
  return new MemoryLocks(ctx.keyPrefix);
}

class MemoryLocks implements Locks {
  private readonly grants = new Map<string, Grant>();
  private readonly tokens = new Map<string, bigint>();
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly prefix: string) {}

  async acquire(
    tenant: string,
    name: string,
    options?: AcquireOptions,
  ): Promise<LockHandle | null> {
    const { waitMs, leaseMs } = checkAcquire(tenant, name, options);
    const key = `${this.prefix}${tenant}\u0000${name}`;
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (!this.grants.has(key)) return this.grant(key, tenant, name, leaseMs);
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await this.waitForChange(key, left);
    }
  }

  isCurrent(tenant: string, name: string, token: bigint): Promise<boolean> {
    // A bad input rejects, as on every backend (never a synchronous throw).
    return Promise.resolve().then(() => {
      checkIsCurrent(tenant, name, token);
      return this.tokens.get(`${this.prefix}${tenant}\u0000${name}`) === token;
    });
  }

  close(): Promise<void> {
    for (const key of [...this.grants.keys()]) this.drop(key, true);
    return Promise.resolve();
  }

  private grant(key: string, tenant: string, name: string, leaseMs: number): LockHandle {
    const token = (this.tokens.get(key) ?? 0n) + 1n;
    this.tokens.set(key, token);
    const controller = new AbortController();
    const grant: Grant = { token, controller, timer: this.leaseTimer(key, token, leaseMs) };
    this.grants.set(key, grant);
    let lease = leaseMs;
    const owns = () => this.grants.get(key) === grant;
    return {
      tenant,
      name,
      token,
      signal: controller.signal,
      extend: (ms?: number) =>
        Promise.resolve().then(() => {
          if (ms !== undefined) checkDuration("leaseMs", ms);
          if (!owns()) return false;
          lease = ms ?? lease;
          clearTimeout(grant.timer);
          grant.timer = this.leaseTimer(key, token, lease);
          return true;
        }),
      release: () => {
        if (owns()) this.drop(key, false);
        return Promise.resolve();
      },
    };
  }

  private leaseTimer(key: string, token: bigint, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (this.grants.get(key)?.token === token) this.drop(key, true);
    }, ms);
    timer.unref();
    return timer;
  }

  /** Ends a grant; `lost` aborts the holder's signal (released on purpose: no abort). */
  private drop(key: string, lost: boolean): void {
    const grant = this.grants.get(key);
    if (grant === undefined) return;
    clearTimeout(grant.timer);
    this.grants.delete(key);
    if (lost) grant.controller.abort(new Error("lock lost: its lease ran out"));
    const waiting = this.waiters.get(key);
    this.waiters.delete(key);
    waiting?.forEach((wake) => wake());
  }

  private waitForChange(key: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (set === undefined) this.waiters.set(key, (set = new Set()));
      const waiters = set;
      const wake = () => {
        clearTimeout(timer);
        waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiters.add(wake);
    });
  }
}
