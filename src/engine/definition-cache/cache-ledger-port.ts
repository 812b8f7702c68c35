/**
 * The definition cache's consistency ledger: what every node consults to know
 * whether a cached copy of definition data may still be used.
 *
 * Glossary
 *
 * - scope: what a change affects. `workflow` — definitions and their
 *   triggers, i.e. the data cached payloads are built from; `routes` — only
 *   what a node's local route table is built from (e.g. a run's waiting
 *   point that a hook path leads to), not definition data.
 *
 * - mutation row: one row of the ledger, with a monotonic id (the database's
 *   auto-increment, never reused), a unique mutation id (text), its scope,
 *   the instance that wrote it and whether it is completed.
 *
 * - fence: the incomplete row a writer inserts (beginMutation) before it
 *   touches the store, outside any store transaction, so every node sees it
 *   at once. While a scope has an incomplete fence, readers bypass the cache
 *   for that scope: they read the store and write nothing into the cache.
 *
 * - completion: completeMutation marks the fence completed and, in the same
 *   transaction, inserts a fresh completed row. The fresh row is what moves
 *   the revision: fences can finish in any order, and a fence whose id is
 *   smaller than the newest completed id would not raise a maximum.
 *
 * - revision: the highest completed id of a scope (0 when there is none).
 *   The data revision is that of `workflow`; the routes revision is the
 *   highest over both scopes, since route tables are built from definitions
 *   too. Caches key their entries by revision, so a completed change makes
 *   every older entry unreachable.
 *
 * - owner instance: `host/pid/boot id` of the process that wrote a row, so an
 *   operator can tell whose fence was left behind.
 *
 * - orphaned fence: a fence whose writer died before completing it. It keeps
 *   readers of its scope on the store (correct, slower) until the reaper
 *   (fence-reaper.ts) or an operator completes it (completeOrphan;
 *   `taskflow cache complete-mutation`).
 *
 * - owner heartbeat: every node that may open fences beats its owner id
 *   (beat) every few seconds; the reaper reads, for each incomplete fence,
 *   how long its owner has been silent, and completes the fences of owners
 *   that went silent (the process is gone) or that are older than the fence
 *   max age (a live owner's write whose outcome was in doubt).
 *
 * - prune: deletes completed rows older than the newest completed row of
 *   their scope; incomplete rows are never pruned.
 */

export const CACHE_SCOPES = ["workflow", "routes"] as const;
export type CacheScope = (typeof CACHE_SCOPES)[number];

/**
 * What a reader keys its cache by: `data` — cached definition payloads
 * (the `workflow` scope); `routes` — a node's route table (both scopes).
 */
export type RevisionView = "data" | "routes";

/** The open fence a writer holds between beginMutation and completeMutation. */
export interface MutationFence {
  readonly id: number;
  readonly mutationId: string;
  readonly scope: CacheScope;
  readonly owner: string;
}

/** What a reader needs before it uses, or fills, its cache. */
export interface LedgerState {
  /** The view's revision (see the glossary). */
  readonly revision: number;
  /** True while an incomplete fence of the view's scopes exists: bypass the cache. */
  readonly fenced: boolean;
}

export interface IncompleteMutation {
  readonly id: number;
  readonly mutationId: string;
  readonly scope: CacheScope;
  readonly owner: string;
  readonly createdAt: Date;
  /** Milliseconds since createdAt, by this node's clock. */
  readonly ageMs: number;
}

/** An incomplete fence with how long its owner has been silent, for the reaper. */
export interface OwnedFence extends IncompleteMutation {
  /**
   * Milliseconds since the owner's last beat, by this node's clock; null when
   * the owner has no heartbeat row (it never beat, or it was forgotten).
   */
  readonly ownerSilentMs: number | null;
}

export interface OrphanCompletion {
  /** False when the fence was already completed (nothing changed). */
  readonly completed: boolean;
}

export interface CacheLedger {
  /** Inserts an incomplete fence of the scope; call before touching the store, outside its transaction. */
  beginMutation(scope: CacheScope, owner: string): Promise<MutationFence>;
  /**
   * In one transaction: marks the fence completed and inserts a fresh completed
   * row of its scope, so the scope's revision rises whatever the order fences
   * finish in. Raises the revision even if an operator completed the fence first.
   */
  completeMutation(fence: MutationFence): Promise<void>;
  /** The highest completed id of the scope; 0 when none. */
  revision(scope: CacheScope): Promise<number>;
  /** The highest completed id over both scopes. */
  routesRevision(): Promise<number>;
  /** The revision of the `workflow` scope. */
  dataRevision(): Promise<number>;
  /** Whether an incomplete fence of the scope exists. */
  hasIncomplete(scope: CacheScope): Promise<boolean>;
  /** A view's revision and whether it is fenced, in one round trip. */
  readState(view: RevisionView): Promise<LedgerState>;
  /**
   * Deletes completed rows older than the newest completed row of their scope;
   * keeps every incomplete row. Safe while other nodes write. Resolves with the
   * number of rows deleted.
   */
  prune(): Promise<number>;
  /** The incomplete fences, oldest first. */
  listIncomplete(): Promise<IncompleteMutation[]>;
  /**
   * Completes a fence left by a writer that died (operator action): as
   * completeMutation when it is incomplete, nothing when already completed.
   * An unknown id (or a completed one already pruned) is a NotFound.
   */
  completeOrphan(mutationId: string): Promise<OrphanCompletion>;
  /** Records that the owner is alive now (creates its heartbeat row when it has none). */
  beat(owner: string): Promise<void>;
  /** The incomplete fences, oldest first (as listIncomplete), each with its owner's silence. */
  listOwnedFences(): Promise<OwnedFence[]>;
  /**
   * Deletes the heartbeat rows of owners silent for longer than `silentMs`
   * that own no incomplete fence. Resolves with the number deleted.
   */
  forgetOwners(silentMs: number): Promise<number>;
}

export function isCacheScope(s: unknown): s is CacheScope {
  return s === "workflow" || s === "routes";
}
