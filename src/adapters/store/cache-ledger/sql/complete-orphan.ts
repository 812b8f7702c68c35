/**
 * An operator completes a fence whose writer is gone. Same transaction as a
 * writer's completion (complete-mutation.ts) when the fence is still
 * incomplete; when it is already completed, nothing happens, so running the
 * command twice (or after the writer came back and finished) is harmless.
 * The fresh row is owned by the fence's writer, so the ledger still says
 * whose change it was.
 */
import { randomUUID } from "node:crypto";
import { taskflowError } from "../../../../domain/errors.ts";
import type { OrphanCompletion } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { retryingConflicts, type LedgerDb } from "../ledger-rows.ts";
import { insertRow } from "./begin-mutation.ts";
import { markCompleted } from "./complete-mutation.ts";
import { isCacheScope } from "../../../../engine/definition-cache/cache-ledger-port.ts";

export async function completeOrphan(
  db: LedgerDb,
  parts: Pick<StoreDialect, "updateReturning" | "classifyError">,
  mutationId: string,
  now: number,
): Promise<OrphanCompletion> {
  return retryingConflicts(parts, () =>
    db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom("cache_mutations")
        .select(["scope", "owner_instance"])
        .where("mutation_id", "=", mutationId)
        .executeTakeFirst();
      if (row === undefined || !isCacheScope(row.scope)) {
        throw taskflowError("CacheMutationNotFound", { mutationId });
      }
      // The conditional update decides, not the read: two operators at once complete it once.
      if (!(await markCompleted(trx, mutationId))) return { completed: false };
      await insertRow(trx, parts, {
        mutationId: randomUUID(),
        scope: row.scope,
        owner: row.owner_instance,
        completed: 1,
        now,
      });
      return { completed: true };
    }),
  );
}
