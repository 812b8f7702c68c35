/**
 * Where the read path gets a view's ledger state (revision, fenced) from.
 * Two modes, one interface; the read path never knows which it has.
 *
 * - strict: every call asks the ledger — one query per cached read. A read
 *   that starts after a change completed always sees the new revision, on
 *   every node (the seed's behaviour; the default).
 * - bounded: the node keeps each view's state in memory, refreshed when
 *   another node says the ledger moved (PostgreSQL NOTIFY, Redis pub/sub) and
 *   by a poll as the fallback. A hit costs no query; a change made on another
 *   node is seen within the poll interval (sooner when the push arrives). A
 *   change made on this node is seen at once: `changed()` refreshes before the
 *   writer answers.
 */
import type { LedgerState, RevisionView } from "./cache-ledger-port.ts";

export const CacheConsistencyModes = ["strict", "bounded"] as const;
export type CacheConsistencyMode = (typeof CacheConsistencyModes)[number];

export interface CacheConsistency {
  readonly mode: CacheConsistencyMode;
  /** The view's revision and whether it is fenced. Rejects when the ledger cannot be read. */
  state(view: RevisionView): Promise<LedgerState>;
  /**
   * This node began or completed a mutation: the bounded mode re-reads the
   * ledger (so this node's next read sees it) and tells the other nodes.
   * Never rejects: the other nodes' poll is the fallback.
   */
  changed(): Promise<void>;
  /** Starts listening and polling (after the ledger's migration); strict has nothing to start. */
  start(): Promise<void>;
  /** Stops listening and polling. */
  close(): Promise<void>;
}
