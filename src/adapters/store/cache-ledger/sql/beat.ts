/**
 * An owner's heartbeat: one upsert of its row in cache_owners with beat_at =
 * now. One statement, autocommitted on the pool (never in a caller's
 * transaction), so the beat is visible to every node's reaper at once. Only
 * the owner itself writes its row, one beat after the other, so a later beat
 * never meets an earlier one.
 */
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { LedgerDb } from "../ledger-rows.ts";

export async function beat(
  db: LedgerDb,
  parts: Pick<StoreDialect, "insertIgnore">,
  owner: string,
  now: number,
): Promise<void> {
  const insert = db.insertInto("cache_owners").values({ owner, beat_at: now });
  if (parts.insertIgnore === "on-conflict-do-nothing") {
    await insert.onConflict((oc) => oc.column("owner").doUpdateSet({ beat_at: now })).execute();
  } else {
    await insert.onDuplicateKeyUpdate({ beat_at: now }).execute();
  }
}
