/**
 * Appending a step event to a run's history — one, or many runs' at once.
 *
 * One: `INSERT … SELECT … FROM runs WHERE <lease held>`, so an append by a
 * worker that lost its lease inserts nothing, and the primary key (tenant_id,
 * run_id, seq) refuses a taken seq. PostgreSQL needs the casts: a parameter in
 * a select list has no type.
 *
 * Many (PostgreSQL, see write-batcher.ts): a run's step record must be durable
 * before its next step starts, so with 32 runs in flight these appends arrive
 * together; one statement of many rows pays the round trip, parse, commit and
 * WAL flush once. Each row is inserted only if its own run's lease holds,
 * exactly as the single append checks it, and RETURNING tells which were; a
 * taken seq fails the statement as a whole (the batcher then retries each
 * append alone, so one fenced run never fails another's). No row locks: like
 * the single append, the primary key is the fence against a worker that took
 * a run over.
 */
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { BatchWriter } from "../write-batcher.ts";
import { isDuplicateKey } from "./fencing.ts";
import type { EventRow, LeaseKey, RunDb } from "./run-rows.ts";
import { statement } from "./statement.ts";

/** One history append of a batch: the lease that fences it and the event. */
export interface BatchedEvent {
  lease: LeaseKey;
  event: EventRow;
}

type AppendParams = LeaseKey & EventRow;

const APPEND_EVENT_TYPED = statement<AppendParams>(
  `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
    select :tenantId::varchar, :runId::varchar, :seq::bigint, :type::varchar, :name::varchar,
      :at::bigint, :data::text
    from runs where tenant_id = :tenantId and id = :runId and lease_owner = :owner
      and status = 'running'`,
).numbered;

const APPEND_EVENT = statement<AppendParams>(
  `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
    select :tenantId, :runId, :seq, :type, :name, :at, :data
    from runs where tenant_id = :tenantId and id = :runId and lease_owner = :owner
      and status = 'running'`,
).positional;

/** Inserts nothing without the lease; false when fenced or the seq is taken. */
export async function appendEvent(
  db: RunDb,
  parts: StoreDialect,
  l: LeaseKey,
  e: EventRow,
): Promise<boolean> {
  const bind = parts.paramStyle === "numbered" ? APPEND_EVENT_TYPED : APPEND_EVENT;
  const params: AppendParams = {
    tenantId: l.tenantId,
    runId: l.runId,
    owner: l.owner,
    seq: e.seq,
    type: e.type,
    name: e.name,
    at: e.at,
    data: e.data,
  };
  try {
    const res = await db.executeQuery(bind(params));
    return Number(res.numAffectedRows ?? 0n) === 1;
  } catch (err) {
    if (isDuplicateKey(parts, err)) return false;
    throw err;
  }
}

interface AppendsParams {
  tenantIds: string[];
  runIds: string[];
  owners: string[];
  seqs: number[];
  types: string[];
  names: (string | null)[];
  ats: number[];
  datas: (string | null)[];
}

const APPEND_EVENTS = statement<AppendsParams>(
  `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
   select e.tenant_id, e.run_id, e.seq, e.type, e.name, e.at, e.data
   from unnest(:tenantIds::varchar[], :runIds::varchar[], :owners::varchar[], :seqs::bigint[],
               :types::varchar[], :names::varchar[], :ats::bigint[], :datas::text[])
     as e(tenant_id, run_id, owner, seq, type, name, at, data)
   join runs on runs.tenant_id = e.tenant_id and runs.id = e.run_id
     and runs.lease_owner = e.owner and runs.status = 'running'
   returning run_events.tenant_id, run_events.run_id, run_events.seq`,
).numbered;

/** Appends in one statement where array parameters exist (PostgreSQL). */
export function appendEventWriter(db: RunDb, parts: StoreDialect): BatchWriter<BatchedEvent> {
  return {
    one: (b) => appendEvent(db, parts, b.lease, b.event),
    many: async (batch) => {
      const res = await db.executeQuery<{ tenant_id: string; run_id: string; seq: string }>(
        APPEND_EVENTS({
          tenantIds: batch.map((b) => b.lease.tenantId),
          runIds: batch.map((b) => b.lease.runId),
          owners: batch.map((b) => b.lease.owner),
          seqs: batch.map((b) => b.event.seq),
          types: batch.map((b) => b.event.type),
          names: batch.map((b) => b.event.name),
          ats: batch.map((b) => b.event.at),
          datas: batch.map((b) => b.event.data),
        }),
      );
      const written = new Set(res.rows.map((r) => `${r.tenant_id}\u0000${r.run_id}\u0000${r.seq}`));
      return batch.map((b) =>
        written.has(`${b.lease.tenantId}\u0000${b.lease.runId}\u0000${b.event.seq}`),
      );
    },
    isRetryable: (e) => isDuplicateKey(parts, e),
  };
}
