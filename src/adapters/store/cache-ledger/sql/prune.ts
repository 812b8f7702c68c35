/**
 * Deletes the completed rows older than the newest completed row of their
 * scope; incomplete rows are never touched.
 *
 * Why one statement per scope with the maximum read inside it: a node that
 * read the maximum first and deleted below it in a second statement could act
 * on a stale maximum, which is harmless, but one that deleted "all but the
 * newest it knows of" by id list could remove a row another node committed in
 * between. Here the bound is whatever the statement itself sees, and a row
 * with that id is never below it, so the scope's newest completed row — its
 * revision — survives every interleaving of prunes and completions; a row
 * committed after the statement's snapshot is above the bound or unseen.
 *
 * The maximum goes through a derived table because MariaDB refuses a
 * subquery on the table a DELETE deletes from, but materialises a derived
 * one first.
 */
import { sql } from "kysely";
import { CACHE_SCOPES } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { retryingConflicts, type LedgerDb } from "../ledger-rows.ts";

export async function prune(
  db: LedgerDb,
  parts: Pick<StoreDialect, "classifyError">,
): Promise<number> {
  let deleted = 0;
  for (const scope of CACHE_SCOPES) {
    const r = await retryingConflicts(parts, () =>
      sql`
        delete from cache_mutations
        where scope = ${scope} and completed = ${1}
          and id < (select newest from (
            select max(id) as newest from cache_mutations
            where scope = ${scope} and completed = ${1}) as bound)
      `.execute(db),
    );
    deleted += Number(r.numAffectedRows ?? 0n);
  }
  return deleted;
}
