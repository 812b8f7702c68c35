/**
 * Requesting cancellation from outside: the flag is set and the run woken, so
 * its next execution (or the one running, at its next heartbeat) sees it.
 */
import type { Run } from "../../../../domain/run.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { fencedTx } from "./fencing.ts";
import { runFromRow, type RunDb } from "./run-rows.ts";
import { wakeRun } from "./wake-run.ts";

/** The run as it is after the request; undefined when there is none. */
export async function requestCancel(
  db: RunDb,
  parts: StoreDialect,
  tenantId: string,
  runId: string,
  now: number,
): Promise<Run | undefined> {
  return fencedTx(db, async (trx) => {
    await trx
      .updateTable("runs")
      .set({ cancel_requested: 1 })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", runId)
      .where("status", "not in", ["completed", "failed", "cancelled"])
      .execute();
    await wakeRun(trx, parts, tenantId, runId, now);
    const row = await trx
      .selectFrom("runs")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", runId)
      .executeTakeFirst();
    return row && runFromRow(row);
  });
}
