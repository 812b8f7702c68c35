/**
 * Suspending a run: it gives up its lease and waits for a timer (`wakeAt`), a
 * signal or cancellation; or, with `blocked`, waits for an operator.
 *
 * The fenced UPDATE locks the row first; the checks after it are new
 * statements (READ COMMITTED), so a signal or cancel committed by then is
 * seen and the run is woken at once ("wakeNow"), and one that commits later
 * finds the run waiting and wakes it (signals.ts, sendSignal).
 */
import type { SuspendResult } from "../../../../engine/durable/run-store-port.ts";
import type { WorkflowFailure } from "../../../../domain/workflow-failure.ts";
import { Fenced, fencedTx, updateHeld } from "./fencing.ts";
import { toText, type LeaseKey, type RunDb } from "./run-rows.ts";

export interface Suspension {
  wakeAt: number | null;
  signalNames: readonly string[];
  now: number;
  blocked?: WorkflowFailure;
}

export async function suspend(db: RunDb, lease: LeaseKey, s: Suspension): Promise<SuspendResult> {
  const { wakeAt, signalNames, now, blocked } = s;
  const r = await fencedTx(db, async (trx) => {
    const res = await updateHeld(trx, lease)
      .set({
        status: "waiting",
        wake_at: wakeAt,
        lease_owner: null,
        lease_until: null,
        updated_at: now,
        error: blocked === undefined ? null : toText(blocked),
        // Parked: the execution ended well, whatever wakes it next.
        stalled_executions: 0,
      })
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
    if (blocked !== undefined) return "suspended" as const;
    const run = await trx
      .selectFrom("runs")
      .select("cancel_requested")
      .where("tenant_id", "=", lease.tenantId)
      .where("id", "=", lease.runId)
      .executeTakeFirst();
    let wake = run !== undefined && Number(run.cancel_requested) === 1;
    if (!wake && signalNames.length > 0) {
      const sig = await trx
        .selectFrom("run_signals")
        .select("id")
        .where("tenant_id", "=", lease.tenantId)
        .where("run_id", "=", lease.runId)
        .where("name", "in", signalNames)
        .where("consumed_seq", "is", null)
        .limit(1)
        .executeTakeFirst();
      wake = sig !== undefined;
    }
    if (!wake) return "suspended" as const;
    await trx
      .updateTable("runs")
      .set({ wake_at: now })
      .where("tenant_id", "=", lease.tenantId)
      .where("id", "=", lease.runId)
      .execute();
    return "wakeNow" as const;
  });
  return r ?? "lost";
}
