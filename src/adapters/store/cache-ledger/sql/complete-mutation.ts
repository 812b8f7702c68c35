/**
 * Completes a fence: in one transaction, marks the fence's row completed and
 * inserts a fresh completed row of the same scope.
 *
 * Why the fresh row: the revision is the highest completed id of a scope, and
 * ids are handed out when fences begin, not when they end. Fence A (id 5) and
 * fence B (id 6) begun in that order, B completed first: the revision is 6.
 * Marking A completed would leave it at 6, and a payload cached at revision 6
 * from data read before A's write would stay in use. The fresh row takes an id
 * above every id handed out so far, so each completion raises the revision.
 *
 * Why one transaction: the fence must not disappear (readers stop bypassing)
 * before the revision has moved, nor the revision move while the fence still
 * says the change is under way. Both become visible at the commit.
 *
 * Two completions at once may commit in the other order than their fresh
 * ids (PostgreSQL and MariaDB take the id at insert), so the second commit can
 * leave the maximum where the first put it: still safe, as its fence kept
 * readers off the cache until that same commit.
 *
 * A fence already completed (an operator did it) still gets its fresh row:
 * raising a revision once more only costs a cache miss.
 */
import { randomUUID } from "node:crypto";
import type { MutationFence } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { retryingConflicts, type LedgerDb } from "../ledger-rows.ts";
import { insertRow } from "./begin-mutation.ts";

export async function completeMutation(
  db: LedgerDb,
  parts: Pick<StoreDialect, "updateReturning" | "classifyError">,
  fence: Pick<MutationFence, "mutationId" | "scope" | "owner">,
  now: number,
): Promise<void> {
  await retryingConflicts(parts, () =>
    db.transaction().execute(async (trx) => {
      await markCompleted(trx, fence.mutationId);
      await insertRow(trx, parts, {
        mutationId: randomUUID(),
        scope: fence.scope,
        owner: fence.owner,
        completed: 1,
        now,
      });
    }),
  );
}

/** Marks one row completed; resolves with whether it was incomplete until now. */
export async function markCompleted(db: LedgerDb, mutationId: string): Promise<boolean> {
  const r = await db
    .updateTable("cache_mutations")
    .set({ completed: 1 })
    .where("mutation_id", "=", mutationId)
    .where("completed", "=", 0)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
