/**
 * The CacheLedger port over SQL, the same on every backend: each method is
 * one operation of ./sql/. Ledger statements run on the database's own pool,
 * never in a caller's transaction: a fence must be visible to other nodes
 * before the store changes, and a completion only after the store committed.
 */
import type {
  CacheLedger,
  CacheScope,
  IncompleteMutation,
  LedgerState,
  MutationFence,
  OrphanCompletion,
  OwnedFence,
  RevisionView,
} from "../../../engine/definition-cache/cache-ledger-port.ts";
import { CACHE_SCOPES } from "../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import type { LedgerDb } from "./ledger-rows.ts";
import { beat } from "./sql/beat.ts";
import { beginMutation } from "./sql/begin-mutation.ts";
import { completeMutation } from "./sql/complete-mutation.ts";
import { completeOrphan } from "./sql/complete-orphan.ts";
import { forgetOwners } from "./sql/forget-owners.ts";
import { hasIncomplete } from "./sql/has-incomplete.ts";
import { listIncomplete } from "./sql/list-incomplete.ts";
import { listOwnedFences } from "./sql/list-owned-fences.ts";
import { prune } from "./sql/prune.ts";
import { readState } from "./sql/read-state.ts";
import { revision } from "./sql/revision.ts";

/** Which scopes a reader's view covers: route tables are built from definitions too. */
const VIEW_SCOPES: Record<RevisionView, readonly CacheScope[]> = {
  data: ["workflow"],
  routes: CACHE_SCOPES,
};

export class SqlCacheLedger implements CacheLedger {
  constructor(
    private readonly db: LedgerDb,
    private readonly parts: StoreDialect,
    private readonly now: () => number = Date.now,
  ) {}

  beginMutation(scope: CacheScope, owner: string): Promise<MutationFence> {
    return beginMutation(this.db, this.parts, scope, owner, this.now());
  }

  completeMutation(fence: MutationFence): Promise<void> {
    return completeMutation(this.db, this.parts, fence, this.now());
  }

  revision(scope: CacheScope): Promise<number> {
    return revision(this.db, [scope]);
  }

  routesRevision(): Promise<number> {
    return revision(this.db, VIEW_SCOPES.routes);
  }

  dataRevision(): Promise<number> {
    return revision(this.db, VIEW_SCOPES.data);
  }

  hasIncomplete(scope: CacheScope): Promise<boolean> {
    return hasIncomplete(this.db, [scope]);
  }

  readState(view: RevisionView): Promise<LedgerState> {
    return readState(this.db, VIEW_SCOPES[view]);
  }

  prune(): Promise<number> {
    return prune(this.db, this.parts);
  }

  listIncomplete(): Promise<IncompleteMutation[]> {
    return listIncomplete(this.db, this.now());
  }

  completeOrphan(mutationId: string): Promise<OrphanCompletion> {
    return completeOrphan(this.db, this.parts, mutationId, this.now());
  }

  beat(owner: string): Promise<void> {
    return beat(this.db, this.parts, owner, this.now());
  }

  listOwnedFences(): Promise<OwnedFence[]> {
    return listOwnedFences(this.db, this.now());
  }

  forgetOwners(silentMs: number): Promise<number> {
    return forgetOwners(this.db, this.parts, this.now() - silentMs);
  }
}
