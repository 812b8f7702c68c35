/**
 * Making a waiting run runnable now: its wake_at becomes `now`, and on a
 * backend with LISTEN/NOTIFY idle workers are told at once.
 */
import { sql } from "kysely";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { RunDb } from "./run-rows.ts";

/** The PostgreSQL channel a run store notifies when a run becomes runnable. */
export const RUNS_CHANNEL = "taskflow_runs";

export const TERMINAL = "('completed', 'failed', 'cancelled')";

/** Tells idle workers (LISTEN/NOTIFY) that a run is runnable; nothing elsewhere. */
export async function notifyRunnable(db: RunDb, parts: StoreDialect): Promise<void> {
  if (parts.listenNotify) await sql`select pg_notify(${RUNS_CHANNEL}, '')`.execute(db);
}

/**
 * wake_at = now if the run is waiting; always takes the row lock, so a run
 * suspending concurrently either sees what the caller wrote before or has
 * committed 'waiting' by the time this UPDATE runs.
 */
export async function wakeRun(
  trx: RunDb,
  parts: StoreDialect,
  tenantId: string,
  runId: string,
  now: number,
): Promise<void> {
  await trx
    .updateTable("runs")
    .set({
      wake_at: sql<number>`case when status = 'waiting' then ${now} else wake_at end`,
      updated_at: now,
    })
    .where("tenant_id", "=", tenantId)
    .where("id", "=", runId)
    .where("status", "not in", ["completed", "failed", "cancelled"])
    .execute();
  await notifyRunnable(trx, parts);
}
