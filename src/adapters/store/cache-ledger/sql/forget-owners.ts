/**
 * Deletes the heartbeat rows of owners that stopped beating, once their
 * fences are gone: every process has a new boot id, so each restart leaves
 * its old row behind, and without this the table would grow by one row per
 * process ever started.
 *
 * A row that still owns an incomplete fence is kept, so the reaper's reason
 * for completing the fence stays "owner silent since …" rather than "owner
 * unknown". One statement: the NOT EXISTS is read by the delete itself, so a
 * fence begun by the owner meanwhile is seen or the owner's next beat (a
 * live owner beats every few seconds) writes the row again. `scope in (…)`
 * lets the subquery use the (scope, completed, id) index's incomplete range.
 */
import { sql } from "kysely";
import { CACHE_SCOPES } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { retryingConflicts, type LedgerDb } from "../ledger-rows.ts";

export async function forgetOwners(
  db: LedgerDb,
  parts: Pick<StoreDialect, "classifyError">,
  beatBefore: number,
): Promise<number> {
  const scopes = sql.join(CACHE_SCOPES.map((s) => sql`${s}`));
  const r = await retryingConflicts(parts, () =>
    sql`
      delete from cache_owners
      where beat_at < ${beatBefore}
        and not exists (select 1 from cache_mutations m
          where m.scope in (${scopes}) and m.completed = ${0}
            and m.owner_instance = cache_owners.owner)
    `.execute(db),
  );
  return Number(r.numAffectedRows ?? 0n);
}
