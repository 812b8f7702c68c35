/**
 * The revision signal port: how the nodes of one deployment tell each other
 * "the ledger moved" for the bounded consistency mode (bounded-consistency.ts).
 *
 * Glossary
 * - ledger: the cache ledger (cache-ledger-port.ts), the only truth of which
 *   revision is current.
 * - moved: the ledger's revision grew (a publish, a retract, a route change).
 * - nudge: what a signal carries — no state, only "re-read the ledger".
 * - poll: every node's periodic ledger read, which bounds staleness whether
 *   or not a signal arrives.
 *
 * A signal carries no
 * state, only a nudge: a node that hears it re-reads the ledger, which stays
 * the only truth. A lost message therefore costs time, never correctness —
 * every node also polls the ledger, and the poll is what bounds how stale a
 * node may be; the signal only makes that usually milliseconds.
 *
 * Adapters (src/adapters/definition-cache/): PostgreSQL LISTEN/NOTIFY, Redis
 * pub/sub, and a poll-only signal that sends and hears nothing (MariaDB or
 * SQLite without Redis).
 */

export const RevisionSignalKinds = ["postgres", "redis", "poll"] as const;
export type RevisionSignalKind = (typeof RevisionSignalKinds)[number];

export interface RevisionSignal {
  readonly kind: RevisionSignalKind;
  /**
   * Starts listening. `onMoved` is called when another node published, and
   * after every (re)connection of the listener (something may have been
   * published while nobody listened). A node's own publishes may be left out:
   * it refreshed before publishing. Resolves once listening, or once the
   * first attempt failed: an outage is logged and retried in the background,
   * never a rejection (the poll covers the gap). Call once.
   */
  start(onMoved: () => void): Promise<void>;
  /**
   * Tells every other listening node that the ledger moved. Never rejects for
   * an outage of the transport (it is logged, rate-limited): the other nodes'
   * poll is the fallback.
   */
  publish(): Promise<void>;
  /** Stops listening (no onMoved after it resolves) and releases what the signal opened. */
  close(): Promise<void>;
}
