/**
 * The wakeups port: a source of "something became runnable" notifications,
 * so a worker claims at once instead of at its next poll. Implemented for
 * PostgreSQL (LISTEN/NOTIFY, src/adapters/store/run-store/pg-wakeups.ts);
 * other backends have none and the worker polls alone.
 *
 * Glossary
 * - wake: a hint that some run may be due (started, signalled, its task
 *   completed) — never which run, and never the truth: the worker's claim
 *   reads the store.
 * - poll: the worker's periodic claim (every pollMs), which also fires due
 *   timers; a lost wake costs at most one poll period.
 * - subscribe: starts listening; resolves with the function that stops it.
 */
export interface Wakeups {
  subscribe(onWake: () => void): Promise<() => Promise<void>>;
}
