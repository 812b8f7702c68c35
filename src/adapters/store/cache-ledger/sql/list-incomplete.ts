/**
 * The incomplete fences, oldest first, for an operator: normally none or a
 * few in flight; one that stays is a writer that died before completing it.
 * Capped, since a listing that does not fit a terminal helps no one.
 */
import type {
  CacheScope,
  IncompleteMutation,
} from "../../../../engine/definition-cache/cache-ledger.ts";
import { toNumber, type LedgerDb } from "../ledger-rows.ts";

export const MAX_LISTED = 1000;

export async function listIncomplete(db: LedgerDb, now: number): Promise<IncompleteMutation[]> {
  const rows = await db
    .selectFrom("cache_mutations")
    .select(["id", "mutation_id", "scope", "owner_instance", "created_at"])
    .where("completed", "=", 0)
    .orderBy("id", "asc")
    .limit(MAX_LISTED)
    .execute();
  return rows.map((r) => {
    const createdAt = toNumber(r.created_at);
    return {
      id: toNumber(r.id),
      mutationId: r.mutation_id,
      scope: r.scope as CacheScope,
      owner: r.owner_instance,
      createdAt: new Date(createdAt),
      ageMs: Math.max(0, now - createdAt),
    };
  });
}
