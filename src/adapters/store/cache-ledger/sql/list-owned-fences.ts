/**
 * The incomplete fences, oldest first, each joined with its owner's last
 * beat: what the reaper judges. A left join, since a fence's owner may have
 * no heartbeat row (it never beat, or the reaper forgot it).
 *
 * Normally there are none or a few fences in flight, so the read is one
 * range of the (scope, completed, id) index and a primary-key lookup per
 * fence. Capped as listIncomplete: a reaper that finds more completes the
 * first MAX_LISTED and the rest on its next round.
 */
import type {
  CacheScope,
  OwnedFence,
} from "../../../../engine/definition-cache/cache-ledger-port.ts";
import { toNumber, type LedgerDb } from "../ledger-rows.ts";

/** A listing that does not fit a terminal helps no one; a reaper does the rest next round. */
export const MAX_LISTED = 1000;

export async function listOwnedFences(db: LedgerDb, now: number): Promise<OwnedFence[]> {
  const rows = await db
    .selectFrom("cache_mutations as m")
    .leftJoin("cache_owners as o", "o.owner", "m.owner_instance")
    .select(["m.id", "m.mutation_id", "m.scope", "m.owner_instance", "m.created_at", "o.beat_at"])
    .where("m.completed", "=", 0)
    .orderBy("m.id", "asc")
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
      ownerSilentMs: r.beat_at === null ? null : Math.max(0, now - toNumber(r.beat_at)),
    };
  });
}
