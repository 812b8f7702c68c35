/**
 * A worker's heartbeat: extends the lease of every run it holds, then reports
 * which runs those are and whether cancellation was requested for them.
 *
 * With SKIP LOCKED and UPDATE … FROM (PostgreSQL): a row that a statement of
 * this worker holds (a batch of outcomes, a suspend) is skipped, not waited
 * for, so the heartbeat never deadlocks with a batch that also locks a
 * running parent. The skipped run's lease is extended next round (heartbeat
 * 1.5 s, lease 5 s), and the read below still reports it as held while it is.
 */
import { sql } from "kysely";
import type { HeldRun } from "../../../../engine/durable/run-store-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { lit } from "../../sql-reads.ts";
import { flag, type RunDb } from "./run-rows.ts";

export async function heartbeat(
  db: RunDb,
  parts: StoreDialect,
  owner: string,
  leaseUntil: number,
): Promise<HeldRun[]> {
  if (parts.skipLocked && parts.updateFrom) {
    await sql`with l as (
        select tenant_id, id from runs where lease_owner = ${owner} and status = 'running'
        order by tenant_id, id for update skip locked)
      update runs set lease_until = ${leaseUntil}, wake_at = ${leaseUntil}
      from l where runs.tenant_id = l.tenant_id and runs.id = l.id`.execute(db);
  } else {
    await db
      .updateTable("runs")
      .set({ lease_until: leaseUntil, wake_at: leaseUntil })
      .where("lease_owner", "=", owner)
      .where("status", "=", lit("running"))
      .execute();
  }
  const rows = await db
    .selectFrom("runs")
    .select(["tenant_id", "id", "cancel_requested"])
    .where("lease_owner", "=", owner)
    .where("status", "=", lit("running"))
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    id: r.id,
    cancelRequested: flag(r.cancel_requested),
  }));
}
