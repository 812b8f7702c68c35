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
import {
  signalRefusal,
  type SignalCaps,
  type SignalRefused,
} from "../../../../engine/durable/run-store-port.ts";

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

/** The run's unconsumed signals and history length (by its last seq: one index probe). */
async function checkCaps(
  trx: RunDb,
  tenantId: string,
  runId: string,
  firstSeq: number,
  caps: SignalCaps,
): Promise<SignalRefused | undefined> {
  const pending = await trx
    .selectFrom("run_signals")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("tenant_id", "=", tenantId)
    .where("run_id", "=", runId)
    .where("consumed_seq", "is", null)
    .executeTakeFirst();
  const last = await trx
    .selectFrom("run_events")
    .select((eb) => eb.fn.max("seq").as("seq"))
    .where("tenant_id", "=", tenantId)
    .where("run_id", "=", runId)
    .executeTakeFirst();
  const length = last?.seq == null ? 0 : Number(last.seq) - firstSeq + 1;
  return signalRefusal(caps, Number(pending?.n ?? 0), length);
}

/**
 * undefined: no such run; false: the run has ended; a refusal: a cap. With
 * caps the run's row is locked first (where rows lock; SQLite has one writer),
 * so two senders count one after the other and cannot pass a cap together.
 */
export async function sendSignal(
  db: RunDb,
  parts: StoreDialect,
  tenantId: string,
  runId: string,
  signal: { id: string; name: string; payload: unknown },
  now: number,
  caps?: SignalCaps,
): Promise<boolean | undefined | SignalRefused> {
  return fencedTx(db, async (trx) => {
    const run = await trx
      .selectFrom("runs")
      .select(["status", "first_seq"])
      .where("tenant_id", "=", tenantId)
      .where("id", "=", runId)
      .$if(caps !== undefined && parts.rowLocks, (q) => q.forUpdate())
      .executeTakeFirst();
    if (run === undefined) return undefined;
    if (isTerminal(run.status as RunStatus)) return false;
    if (caps !== undefined) {
      const refused = await checkCaps(trx, tenantId, runId, num(run.first_seq), caps);
      if (refused !== undefined) return refused;
    }
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
