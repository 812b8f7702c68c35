/**
 * The locks port: mutual exclusion between processes, with a lease and a
 * fencing token. One of the five coordination primitives (coordination-port.ts,
 * where tenant and key prefix are defined).
 *
 * Glossary
 * - holder: the process a lock is granted to, until it releases it or loses it.
 * - lease: how long a grant lasts without extend(); a holder that dies is
 *   replaced when its lease ends (or at once where the backend ties the lock
 *   to a connection the death closes).
 * - lost: the lease ran out or the connection dropped; the handle's signal
 *   aborts and the holder must stop writing.
 * - fencing token: grows with every grant of a (tenant, name), across
 *   processes and restarts; a write carrying an older token than the newest
 *   is refused (isCurrent), so a holder that lost its lock cannot overwrite
 *   the next holder's work.
 */

export interface AcquireOptions {
  /** How long to wait for a held lock before giving up (0: try once). Default 0. */
  waitMs?: number;
  /** How long the lock stays held without extend(). Default 30 s. */
  leaseMs?: number;
}

export interface LockHandle {
  readonly tenant: string;
  readonly name: string;
  /**
   * Grows with every grant of this (tenant, name), across processes and
   * restarts: a resource that keeps the largest token it saw can refuse a
   * write from a holder that has since lost the lock.
   */
  readonly token: bigint;
  /** Aborted when the lock is lost: the lease ran out, or the backend connection dropped. */
  readonly signal: AbortSignal;
  /**
   * Pushes the lease end to now + leaseMs (default: the lease it was acquired
   * with). Resolves false when the lock was already lost (and aborts `signal`).
   */
  extend(leaseMs?: number): Promise<boolean>;
  /** Gives the lock up; a no-op when it was already lost or released. */
  release(): Promise<void>;
}

export interface Locks {
  /**
   * Takes the lock or resolves null when it stays held by someone else for
   * `waitMs`. Rejects with UnavailableError when the backend cannot be reached,
   * with a Validation TaskflowError for a bad name, wait or lease.
   */
  acquire(tenant: string, name: string, options?: AcquireOptions): Promise<LockHandle | null>;
  /**
   * Whether `token` is still the newest token granted for (tenant, name): the
   * check a fenced write makes before it writes.
   */
  isCurrent(tenant: string, name: string, token: bigint): Promise<boolean>;
  close(): Promise<void>;
}
