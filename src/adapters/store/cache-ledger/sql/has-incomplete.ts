/**
 * Whether a scope has an incomplete fence: the first entry of the scope's
 * incomplete range of the (scope, completed, id) index, if there is one.
 * LIMIT 1 rather than count(*): many orphaned fences must not make it slower.
 */
import type { CacheScope } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { LedgerDb } from "../ledger-rows.ts";

export async function hasIncomplete(db: LedgerDb, scopes: readonly CacheScope[]): Promise<boolean> {
  const row = await db
    .selectFrom("cache_mutations")
    .select("id")
    .where("scope", "in", scopes)
    .where("completed", "=", 0)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
