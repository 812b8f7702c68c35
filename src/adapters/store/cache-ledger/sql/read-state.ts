/**
 * What a reader asks before using its cache, in one round trip: the view's
 * revision and whether an incomplete fence of its scopes exists. Two scalar
 * subqueries in a FROM-less SELECT (all three databases accept one), each the
 * same index lookup as revision.ts and has-incomplete.ts. One statement is
 * also one snapshot: the revision and the fence are read at the same moment.
 */
import { sql } from "kysely";
import type {
  CacheScope,
  LedgerState,
} from "../../../../engine/definition-cache/cache-ledger-port.ts";
import { toNumber, type LedgerDb } from "../ledger-rows.ts";

interface StateRow {
  revision: number | string | null;
  fenced: number | string | boolean | null;
}

export async function readState(db: LedgerDb, scopes: readonly CacheScope[]): Promise<LedgerState> {
  const inScopes = sql.join(scopes.map((s) => sql`${s}`));
  const { rows } = await sql<StateRow>`
    select
      (select max(id) from cache_mutations
        where scope in (${inScopes}) and completed = ${1}) as revision,
      (select count(*) from (select id from cache_mutations
        where scope in (${inScopes}) and completed = ${0} limit 1) as open_fence) as fenced
  `.execute(db);
  const row = rows[0];
  return { revision: toNumber(row?.revision), fenced: toNumber(row?.fenced as number) > 0 };
}
