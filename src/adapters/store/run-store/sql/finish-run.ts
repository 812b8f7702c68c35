/**
 * A run's outcome — completed, failed or cancelled — with its tail events, its
 * instance tree closed, and for a child run the parent's wake-up; one run, or
 * many runs' at once.
 *
 * MariaDB / SQLite: one transaction. Events first: their insert is fenced by
 * the lease that the outcome's UPDATE clears.
 *
 * PostgreSQL, one run: one statement (it was BEGIN, UPDATE run, SELECT root
 * and parent, two UPDATEs of the instance tree, COMMIT, plus one autocommit
 * INSERT per last step event): the fenced UPDATE of the run, the tail events,
 * the instance tree, and — for a child run — the parent's wake-up signal, its
 * wake and the NOTIFY. Every CTE reads `r`, so a lost lease (no row in `r`)
 * writes nothing; a taken seq fails the statement as a whole. The parent row
 * is another row than `r`'s, so no row is updated twice.
 *
 * PostgreSQL, many runs (see write-batcher.ts): each exactly as one run is
 * written; RETURNING names the runs whose lease held. The runs' rows are
 * locked first in (tenant_id, id) order, so two batches cannot deadlock over
 * them (the heartbeat skips locked rows). A parent finishing in the same batch
 * as its child is not woken (it is finishing; updating its row twice in one
 * statement is undefined). A taken seq or a deadlock fails the statement as a
 * whole and the batcher retries each run alone.
 */
import { newId } from "../../../../domain/ids.ts";
import type { FinishExtras } from "../../../../engine/durable/run-store-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { BatchWriter } from "../write-batcher.ts";
import { appendEvent } from "./append-event.ts";
import { closeTreeOf, completeTree, wakeParentOf } from "./complete-tree.ts";
import { Fenced, fencedTx, isDeadlock, isDuplicateKey } from "./fencing.ts";
import type { EventRow, LeaseKey, RunDb } from "./run-rows.ts";
import { statement } from "../../sql/statement.ts";
import { RUNS_CHANNEL, TERMINAL, wakeRun } from "./wake-run.ts";

export interface FinishRow {
  lease: LeaseKey;
  status: string;
  output: string | null;
  error: string | null;
  now: number;
  events: readonly EventRow[];
  /** For the parent's wake-up signal, used only when the run has a parent. */
  signalId: string;
}

interface OutcomeParams extends LeaseKey {
  status: string;
  output: string | null;
  error: string | null;
  now: number;
}

const outcome = (f: FinishRow): OutcomeParams => ({
  tenantId: f.lease.tenantId,
  runId: f.lease.runId,
  owner: f.lease.owner,
  status: f.status,
  output: f.output,
  error: f.error,
  now: f.now,
});

const FINISH_RUN = statement<OutcomeParams>(
  `update runs set status = :status, output = :output, error = :error, wake_at = null,
     lease_owner = null, lease_until = null, updated_at = :now
   where tenant_id = :tenantId and id = :runId and lease_owner = :owner and status = 'running'`,
);

/** MariaDB / SQLite: the outcome in one transaction; false when fenced. */
export async function finishInTransaction(
  db: RunDb,
  parts: StoreDialect,
  f: FinishRow,
  extras: FinishExtras | undefined,
): Promise<boolean> {
  const { lease, now } = f;
  const ok = await fencedTx(db, async (trx) => {
    for (const ev of f.events) {
      if (!(await appendEvent(trx, parts, lease, ev))) throw new Fenced();
    }
    const res = await trx.executeQuery(FINISH_RUN[parts.paramStyle](outcome(f)));
    if (Number(res.numAffectedRows) !== 1) throw new Fenced();
    // The run's root instance closes with it (the starter's process list).
    const root =
      extras ??
      (await trx
        .selectFrom("runs")
        .select(["root_instance_id as rootInstanceId", "parent_run_id as parentRunId"])
        .where("tenant_id", "=", lease.tenantId)
        .where("id", "=", lease.runId)
        .executeTakeFirst());
    if (root?.rootInstanceId) {
      await completeTree(trx, parts, {
        tenantId: lease.tenantId,
        rootId: root.rootInstanceId,
        parentRunId: root.parentRunId,
        at: now,
      });
    }
    if (root?.parentRunId) {
      // Wake the parent waiting in ctx.child, atomically with this outcome.
      await trx
        .insertInto("run_signals")
        .values({
          tenant_id: lease.tenantId,
          run_id: root.parentRunId,
          id: newId(now),
          name: `__child:${lease.runId}`,
          payload: "null",
          at: now,
          consumed_seq: null,
        })
        .execute();
      await wakeRun(trx, parts, lease.tenantId, root.parentRunId, now);
    }
    return true;
  });
  return ok === true;
}

interface EventColumns {
  seqs: number[];
  types: string[];
  names: (string | null)[];
  ats: number[];
  datas: (string | null)[];
}

const FINISH_RUN_CTE = statement<OutcomeParams & EventColumns & { signalId: string }>(
  `with r as (
      update runs set status = :status, output = :output, error = :error, wake_at = null,
        lease_owner = null, lease_until = null, updated_at = :now
      where tenant_id = :tenantId and id = :runId and lease_owner = :owner and status = 'running'
      returning tenant_id, id, root_instance_id, parent_run_id
    ), ev as (
      insert into run_events (tenant_id, run_id, seq, type, name, at, data)
      select r.tenant_id, r.id, e.seq, e.type, e.name, e.at, e.data
      from r, unnest(:seqs::bigint[], :types::varchar[], :names::varchar[], :ats::bigint[],
                     :datas::text[]) as e(seq, type, name, at, data)
    ), i as (${closeTreeOf(":now::bigint")}
    ), s as (${wakeParentOf(":signalId::varchar", ":now::bigint")}
    ), w as (
      update runs p set
        wake_at = case when p.status = 'waiting' then :now::bigint else p.wake_at end,
        updated_at = :now::bigint
      from r
      where p.tenant_id = r.tenant_id and p.id = r.parent_run_id and p.status not in ${TERMINAL}
    )
    select case when r.parent_run_id is not null then pg_notify('${RUNS_CHANNEL}', '') end as n
    from r`,
).numbered;

interface FinishesParams {
  tenantIds: string[];
  ids: string[];
  owners: string[];
  statuses: string[];
  outputs: (string | null)[];
  errors: (string | null)[];
  nows: number[];
  signalIds: string[];
  evTenantIds: string[];
  evRunIds: string[];
  evSeqs: number[];
  evTypes: string[];
  evNames: (string | null)[];
  evAts: number[];
  evDatas: (string | null)[];
}

const FINISH_RUNS = statement<FinishesParams>(
  `with f as (
     select * from unnest(:tenantIds::varchar[], :ids::varchar[], :owners::varchar[],
       :statuses::varchar[], :outputs::text[], :errors::text[], :nows::bigint[],
       :signalIds::varchar[])
     as f(tenant_id, id, owner, status, output, error, now, signal_id)
   ), l as (
     select runs.tenant_id, runs.id from runs
     join f on runs.tenant_id = f.tenant_id and runs.id = f.id
     where runs.lease_owner = f.owner and runs.status = 'running'
     order by runs.tenant_id, runs.id
     for update of runs
   ), r as (
     update runs set status = f.status, output = f.output, error = f.error, wake_at = null,
       lease_owner = null, lease_until = null, updated_at = f.now
     from l join f on f.tenant_id = l.tenant_id and f.id = l.id
     where runs.tenant_id = l.tenant_id and runs.id = l.id
     returning runs.tenant_id, runs.id, runs.root_instance_id, runs.parent_run_id,
       f.now, f.signal_id
   ), ev as (
     insert into run_events (tenant_id, run_id, seq, type, name, at, data)
     select r.tenant_id, r.id, e.seq, e.type, e.name, e.at, e.data
     from r join unnest(:evTenantIds::varchar[], :evRunIds::varchar[], :evSeqs::bigint[],
       :evTypes::varchar[], :evNames::varchar[], :evAts::bigint[], :evDatas::text[])
       as e(tenant_id, run_id, seq, type, name, at, data)
       on e.tenant_id = r.tenant_id and e.run_id = r.id
   ), i as (${closeTreeOf("r.now")}
   ), s as (${wakeParentOf("r.signal_id", "r.now")}
   ), w as (
     update runs p set
       wake_at = case when p.status = 'waiting' then r.now else p.wake_at end,
       updated_at = r.now
     from r
     where p.tenant_id = r.tenant_id and p.id = r.parent_run_id and p.status not in ${TERMINAL}
       and not exists (select 1 from f where f.tenant_id = p.tenant_id and f.id = p.id)
   )
   select r.tenant_id, r.id,
     case when r.parent_run_id is not null then pg_notify('${RUNS_CHANNEL}', '') end as n
   from r`,
).numbered;

function finishesParams(rows: readonly FinishRow[]): FinishesParams {
  const col = <T>(f: (s: FinishRow) => T) => rows.map(f);
  const evs = rows.flatMap((f) => f.events.map((e) => ({ f, e })));
  return {
    tenantIds: col((f) => f.lease.tenantId),
    ids: col((f) => f.lease.runId),
    owners: col((f) => f.lease.owner),
    statuses: col((f) => f.status),
    outputs: col((f) => f.output),
    errors: col((f) => f.error),
    nows: col((f) => f.now),
    signalIds: col((f) => f.signalId),
    evTenantIds: evs.map((x) => x.f.lease.tenantId),
    evRunIds: evs.map((x) => x.f.lease.runId),
    evSeqs: evs.map((x) => x.e.seq),
    evTypes: evs.map((x) => x.e.type),
    evNames: evs.map((x) => x.e.name),
    evAts: evs.map((x) => x.e.at),
    evDatas: evs.map((x) => x.e.data),
  };
}

/** PostgreSQL (writable CTEs, array parameters): one statement per outcome or per batch. */
export function finishRunWriter(db: RunDb, parts: StoreDialect): BatchWriter<FinishRow> {
  return {
    one: async (f) => {
      const ev = f.events;
      const params = {
        ...outcome(f),
        seqs: ev.map((e) => e.seq),
        types: ev.map((e) => e.type),
        names: ev.map((e) => e.name),
        ats: ev.map((e) => e.at),
        datas: ev.map((e) => e.data),
        signalId: f.signalId,
      };
      try {
        return (await db.executeQuery(FINISH_RUN_CTE(params))).rows.length === 1;
      } catch (e) {
        if (isDuplicateKey(parts, e)) return false;
        throw e;
      }
    },
    many: async (rows) => {
      const res = await db.executeQuery<{ tenant_id: string; id: string }>(
        FINISH_RUNS(finishesParams(rows)),
      );
      const done = new Set(res.rows.map((r) => `${r.tenant_id}\u0000${r.id}`));
      return rows.map((f) => done.has(`${f.lease.tenantId}\u0000${f.lease.runId}`));
    },
    isRetryable: (e) => isDuplicateKey(parts, e) || isDeadlock(parts, e),
  };
}
