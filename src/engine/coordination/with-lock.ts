/**
 * withLock: run `fn` while holding a lock, on any Locks implementation.
 *
 * - Not acquired within `waitMs` (default 0: one try): `{ ran: false }`, and
 *   `fn` never runs.
 * - While `fn` runs, the lease is extended every lease/3, so a lock is held
 *   as long as `fn` takes; a holder that dies stops extending and loses it.
 * - When the lock is lost anyway (the lease ran out because extends kept
 *   failing, the backend's connection dropped, another owner has it),
 *   `signal` aborts: `fn` must stop writing. A write that must never come
 *   from a stale holder also carries `handle.token` (see Locks.isCurrent).
 * - The lock is always released when `fn` settles, however it settles; `fn`'s
 *   own error is rethrown. A failing release is not reported: the lock ends
 *   with its lease (or its session) anyway.
 */
import { DEFAULT_LOCK_LEASE_MS } from "./limits.ts";
import type { AcquireOptions, LockHandle, Locks } from "./locks-port.ts";

export type WithLockResult<T> = { ran: true; value: T } | { ran: false };

export async function withLock<T>(
  locks: Locks,
  tenant: string,
  name: string,
  fn: (signal: AbortSignal, handle: LockHandle) => Promise<T>,
  options: AcquireOptions = {},
): Promise<WithLockResult<T>> {
  const handle = await locks.acquire(tenant, name, options);
  if (handle === null) return { ran: false };
  const leaseMs = options.leaseMs ?? DEFAULT_LOCK_LEASE_MS;
  let extending = false;
  const renew = setInterval(
    () => {
      // One extend at a time: a slow backend must not pile them up.
      if (extending || handle.signal.aborted) return;
      extending = true;
      // A failed extend (backend briefly down) is retried at the next tick;
      // if the lease runs out meanwhile, the handle aborts its signal.
      handle
        .extend(leaseMs)
        .catch(() => undefined)
        .finally(() => {
          extending = false;
        });
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  try {
    return { ran: true, value: await fn(handle.signal, handle) };
  } finally {
    clearInterval(renew);
    await handle.release().catch(() => undefined);
  }
}
