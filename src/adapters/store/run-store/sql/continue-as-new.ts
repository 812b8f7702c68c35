/**
 * Continue-as-new: the run keeps its id and lease but starts over with a new
 * input and generation; the history before `firstSeq` is deleted in the same
 * transaction, so a replay never sees the old generation's events.
 */
import { sql } from "kysely";
import { Fenced, fencedTx, updateHeld } from "./fencing.ts";
import { toText, type LeaseKey, type RunDb } from "./run-rows.ts";

export async function continueAsNew(
  db: RunDb,
  lease: LeaseKey,
  input: unknown,
  firstSeq: number,
  now: number,
): Promise<boolean> {
  const ok = await fencedTx(db, async (trx) => {
    const res = await updateHeld(trx, lease)
      .set({
        input: toText(input),
        generation: sql<number>`generation + 1`,
        first_seq: firstSeq,
        updated_at: now,
        stalled_executions: 0,
      })
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
    await trx
      .deleteFrom("run_events")
      .where("tenant_id", "=", lease.tenantId)
      .where("run_id", "=", lease.runId)
      .where("seq", "<", firstSeq)
      .execute();
    return true;
  });
  return ok === true;
}

/** Gives the lease back: the run is runnable again at once, by any worker. */
export async function releaseRun(db: RunDb, lease: LeaseKey, now: number): Promise<void> {
  await updateHeld(db, lease)
    .set({
      lease_owner: null,
      lease_until: null,
      wake_at: now,
      updated_at: now,
      // A release (a store error, a lapsed lease, a drain) is the worker giving the run back,
      // not the run taking its node down: it takes back its claim's stalled execution, so a
      // run released again and again by a busy store is never quarantined for it.
      stalled_executions: sql<number>`case when stalled_executions > 0
        then stalled_executions - 1 else 0 end`,
    })
    .execute();
}
