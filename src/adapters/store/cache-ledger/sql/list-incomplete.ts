/**
 * The incomplete fences, oldest first, for an operator: normally none or a
 * few in flight; one that stays is a writer that died before completing it.
 * The reaper's read without the owners' silence (one statement, the same
 * cap), so the two listings cannot drift apart.
 */
import type { IncompleteMutation } from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { LedgerDb } from "../ledger-rows.ts";
import { listOwnedFences } from "./list-owned-fences.ts";

export async function listIncomplete(db: LedgerDb, now: number): Promise<IncompleteMutation[]> {
  const fences = await listOwnedFences(db, now);
  return fences.map(({ ownerSilentMs: _silence, ...fence }) => fence);
}
