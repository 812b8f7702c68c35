/**
 * Quarantining a run (docs/durable.md, Quarantine): out of every worker's
 * reach — wake_at null, so no claim finds it — with the reason as its error,
 * until an operator releases it. Fenced by the lease like every write of an
 * execution.
 */
import type { WorkflowFailure } from "../../../../domain/workflow-failure.ts";
import { updateHeld } from "./fencing.ts";
import { toText, type LeaseKey, type RunDb } from "./run-rows.ts";

export async function quarantineRun(
  db: RunDb,
  lease: LeaseKey,
  failure: WorkflowFailure,
  now: number,
): Promise<boolean> {
  const res = await updateHeld(db, lease)
    .set({
      status: "quarantined",
      error: toText(failure),
      wake_at: null,
      lease_owner: null,
      lease_until: null,
      updated_at: now,
    })
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
