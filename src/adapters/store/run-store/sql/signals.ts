/**
 * Signals to a run: sent from outside, peeked and consumed by the run's
 * execution (consuming records an event in the same transaction, fenced by
 * the lease), dropped when the run stops waiting for them.
 */
import { isTerminal, type RunSignal, type RunStatus } from "../../../../domain/run.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { appendEvent } from "./append-event.ts";
import { Fenced, fencedTx } from "./fencing.ts";
import {
  fromText,
  nnum,
  num,
  toText,
  type EventRow,
  type LeaseKey,
  type RunDb,
} from "./run-rows.ts";
import { wakeRun } from "./wake-run.ts";

export async function peekSignal(
  db: RunDb,
  tenantId: string,
  runId: string,
  name: string,
): Promise<RunSignal | undefined> {
  const row = await db
    .selectFrom("run_signals")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("run_id", "=", runId)
    .where("name", "=", name)
    .where("consumed_seq", "is", null)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return (
    row && {
      id: row.id,
      name: row.name,
      payload: fromText(row.payload),
      at: num(row.at),
      consumedSeq: nnum(row.consumed_seq),
    }
  );
}

/** Marks the signal consumed at the event's seq and appends the event, or neither. */
export async function consumeSignal(
  db: RunDb,
  parts: StoreDialect,
  lease: LeaseKey,
  signalId: string,
  event: EventRow,
): Promise<boolean> {
  const ok = await fencedTx(db, async (trx) => {
    const res = await trx
      .updateTable("run_signals")
      .set({ consumed_seq: event.seq })
      .where("tenant_id", "=", lease.tenantId)
      .where("run_id", "=", lease.runId)
      .where("id", "=", signalId)
      .where("consumed_seq", "is", null)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) throw new Fenced();
    if (!(await appendEvent(trx, parts, lease, event))) throw new Fenced();
    return true;
  });
  return ok === true;
}

export async function dropSignals(
  db: RunDb,
  lease: LeaseKey,
  names: readonly string[],
): Promise<void> {
  if (names.length === 0) return;
  await db
    .updateTable("run_signals")
    .set({ consumed_seq: -1 })
    .where("tenant_id", "=", lease.tenantId)
    .where("run_id", "=", lease.runId)
    .where("name", "in", names)
    .where("consumed_seq", "is", null)
    .execute();
}

/** undefined: no such run; false: the run has ended. */
export async function sendSignal(
  db: RunDb,
  parts: StoreDialect,
  tenantId: string,
  runId: string,
  signal: { id: string; name: string; payload: unknown },
  now: number,
): Promise<boolean | undefined> {
  return fencedTx(db, async (trx) => {
    const run = await trx
      .selectFrom("runs")
      .select("status")
      .where("tenant_id", "=", tenantId)
      .where("id", "=", runId)
      .executeTakeFirst();
    if (run === undefined) return undefined;
    if (isTerminal(run.status as RunStatus)) return false;
    await trx
      .insertInto("run_signals")
      .values({
        tenant_id: tenantId,
        run_id: runId,
        id: signal.id,
        name: signal.name,
        payload: toText(signal.payload),
        at: now,
        consumed_seq: null,
      })
      .execute();
    // After the insert, lock the row: a run suspending concurrently either sees
    // this signal or has committed 'waiting' by the time this UPDATE runs.
    await wakeRun(trx, parts, tenantId, runId, now);
    return true;
  });
}
