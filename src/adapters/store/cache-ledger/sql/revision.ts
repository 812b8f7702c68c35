/**
 * The highest completed id over some scopes: a scope's revision, or the
 * routes revision over both. Served by the (scope, completed, id) index: the
 * last entry of each scope's completed range.
 */
import type { CacheScope } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import { toNumber, type LedgerDb } from "../ledger-rows.ts";

export async function revision(db: LedgerDb, scopes: readonly CacheScope[]): Promise<number> {
  const row = await db
    .selectFrom("cache_mutations")
    .select((eb) => eb.fn.max("id").as("revision"))
    .where("scope", "in", scopes)
    .where("completed", "=", 1)
    .executeTakeFirst();
  return toNumber(row?.revision);
}
