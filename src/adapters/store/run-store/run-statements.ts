/**
 * The durable runtime's hot statements as fixed SQL texts, one per dialect,
 * executed as CompiledQuery without the query builder.
 *
 * Why: a 3-step workflow issues these on every run, and building them with
 * Kysely cost ~14 % of the process's CPU on SQLite (profile of `npm run bench --
 * durable sqlite`, 2026-11-30). Why on PostgreSQL they are single statements
 * with data-modifying CTEs: pg has no pipelining, so each statement is a round
 * trip (~0.15 ms on loopback here plus ~0.1 ms of server CPU), and a BEGIN …
 * COMMIT around three statements costs five; one statement is its own
 * transaction, all of its CTEs or none.
 *
 * Every parameter appears once in a text (PostgreSQL deduces one type per
 * parameter, and a reused one can be deduced inconsistently).
 */
import { CompiledQuery } from "kysely";
import type { StoreDialectName } from "../dialects/store-dialect.ts";

export const RUNS_CHANNEL = "taskflow_runs";

const TERMINAL = "('completed', 'failed', 'cancelled')";

/**
 * `INSERT … SELECT … FROM runs WHERE <lease held>`: inserts nothing without the
 * lease, and the primary key (tenant_id, run_id, seq) refuses a taken seq.
 * PostgreSQL needs the casts: a parameter in a select list has no type.
 */
const INSERT_EVENT: Record<"postgres" | "other", string> = {
  postgres: `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
    select $1::varchar, $2::varchar, $3::bigint, $4::varchar, $5::varchar, $6::bigint, $7::text
    from runs where tenant_id = $8 and id = $9 and lease_owner = $10 and status = 'running'`,
  other: `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
    select ?, ?, ?, ?, ?, ?, ?
    from runs where tenant_id = ? and id = ? and lease_owner = ? and status = 'running'`,
};

export interface EventRow {
  seq: number;
  type: string;
  name: string | null;
  at: number;
  data: string | null;
}

export interface LeaseKey {
  tenantId: string;
  runId: string;
  owner: string;
}

export function insertEvent(dialect: StoreDialectName, l: LeaseKey, e: EventRow): CompiledQuery {
  const text = INSERT_EVENT[dialect === "postgres" ? "postgres" : "other"];
  return CompiledQuery.raw(text, [
    l.tenantId,
    l.runId,
    e.seq,
    e.type,
    e.name,
    e.at,
    e.data,
    l.tenantId,
    l.runId,
    l.owner,
  ]);
}

/**
 * Closes a run's instance tree with the run, in one UPDATE (it was two): every
 * instance not yet completed becomes completed at `at`, its process state
 * closed unless it has none; the root's process state is closed even if it was
 * completed earlier. `status` is assigned last because MySQL evaluates SET
 * left to right with the new values; PostgreSQL and SQLite see the old row.
 */
export function completeTree(tenantId: string, rootId: string, at: number): CompiledQuery {
  return CompiledQuery.raw(
    `update instances set
       completed_at = case when status <> 'completed' then ? else completed_at end,
       process_state = case when id = ? or process_state is not null then 'closed' else null end,
       status = 'completed'
     where tenant_id = ? and root_instance_id = ? and (status <> 'completed' or id = ?)`,
    [at, rootId, tenantId, rootId, rootId],
  );
}

/** PostgreSQL: `?` → `$n`. */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

export interface StartRow {
  tenantId: string;
  runId: string;
  workflow: string;
  instanceId: string;
  definitionId: string;
  startedBy: string;
  vars: string;
  input: string;
  status: string;
  parentRunId: string | null;
  now: number;
  wakeAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  notify: boolean;
}

const INSERT_INSTANCE = `insert into instances (tenant_id, id, kind, definition_id,
    definition_key, parent_instance_id, root_instance_id, status, process_state, vars,
    started_by, created_at, completed_at, on_all_completed, joined_at)
  values (?, ?, 'process', ?, ?, null, ?, 'running', 'open', ?, ?, ?, null, null, null)`;
const INSERT_RUN = `insert into runs (tenant_id, id, workflow, status, input, output, error,
    root_instance_id, parent_run_id, created_at, updated_at, wake_at, lease_owner,
    lease_until, cancel_requested, generation, first_seq)
  values (?, ?, ?, ?, ?, null, null, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0)`;

const instanceParams = (s: StartRow) => [
  s.tenantId,
  s.instanceId,
  s.definitionId,
  s.workflow,
  s.instanceId,
  s.vars,
  s.startedBy,
  s.now,
];
const runParams = (s: StartRow) => [
  s.tenantId,
  s.runId,
  s.workflow,
  s.status,
  s.input,
  s.instanceId,
  s.parentRunId,
  s.now,
  s.now,
  s.wakeAt,
  s.leaseOwner,
  s.leaseUntil,
];

/** MariaDB / SQLite: the run's root instance, then the run, in the caller's transaction. */
export function startRun(s: StartRow): CompiledQuery[] {
  return [
    CompiledQuery.raw(INSERT_INSTANCE, instanceParams(s)),
    CompiledQuery.raw(INSERT_RUN, runParams(s)),
  ];
}

/**
 * PostgreSQL: a run and its root instance in one statement (it was BEGIN,
 * two INSERTs, COMMIT), with the NOTIFY that wakes idle workers when the run
 * is not already leased to the starter. A duplicate run id fails the whole
 * statement (unique violation), instance included.
 */
export function pgStartRun(s: StartRow): CompiledQuery {
  const text = s.notify
    ? `with i as (${INSERT_INSTANCE}), r as (${INSERT_RUN} returning 1)
       select pg_notify('${RUNS_CHANNEL}', '') from r`
    : `with i as (${INSERT_INSTANCE}) ${INSERT_RUN}`;
  return CompiledQuery.raw(numbered(text), [...instanceParams(s), ...runParams(s)]);
}

/** MariaDB / SQLite: the fenced outcome update (tail events go first, see SqlRunStore.finish). */
export function finishRun(f: FinishRow): CompiledQuery {
  return CompiledQuery.raw(
    `update runs set status = ?, output = ?, error = ?, wake_at = null, lease_owner = null,
       lease_until = null, updated_at = ?
     where tenant_id = ? and id = ? and lease_owner = ? and status = 'running'`,
    [f.status, f.output, f.error, f.now, f.lease.tenantId, f.lease.runId, f.lease.owner],
  );
}

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

/**
 * A finish's CTE that closes the instance tree of each finished run in `r`, as
 * `completeTree` does (see there), at the SQL time `at`.
 */
const closeTreeOf = (at: string) => `
      update instances set
        completed_at = case when instances.status <> 'completed' then ${at}
                            else instances.completed_at end,
        process_state = case when instances.id = r.root_instance_id
                               or instances.process_state is not null
                             then 'closed' else null end,
        status = 'completed'
      from r
      where instances.tenant_id = r.tenant_id and instances.root_instance_id = r.root_instance_id
        and (instances.status <> 'completed' or instances.id = r.root_instance_id)`;

/** A finish's CTE that signals the parent of each finished child run in `r`. */
const wakeParentOf = (signalId: string, at: string) => `
      insert into run_signals (tenant_id, run_id, id, name, payload, at, consumed_seq)
      select r.tenant_id, r.parent_run_id, ${signalId}, '__child:' || r.id, 'null', ${at}, null
      from r where r.parent_run_id is not null`;

/**
 * PostgreSQL: a run's outcome in one statement (it was BEGIN, UPDATE run,
 * SELECT root and parent, two UPDATEs of the instance tree, COMMIT, plus one
 * autocommit INSERT per last step event): the fenced UPDATE of the run, the
 * tail events, the instance tree, and — for a child run — the parent's wake-up
 * signal, its wake and the NOTIFY. Every CTE reads `r`, so a lost lease (no
 * row in `r`) writes nothing; a taken seq fails the statement as a whole.
 * The parent row is another row than `r`'s, so no row is updated twice.
 */
export function pgFinishRun(f: FinishRow): CompiledQuery {
  const { lease, now } = f;
  const text = `with r as (
      update runs set status = ?, output = ?, error = ?, wake_at = null, lease_owner = null,
        lease_until = null, updated_at = ?
      where tenant_id = ? and id = ? and lease_owner = ? and status = 'running'
      returning tenant_id, id, root_instance_id, parent_run_id
    ), ev as (
      insert into run_events (tenant_id, run_id, seq, type, name, at, data)
      select r.tenant_id, r.id, e.seq, e.type, e.name, e.at, e.data
      from r, unnest(?::bigint[], ?::varchar[], ?::varchar[], ?::bigint[], ?::text[])
        as e(seq, type, name, at, data)
    ), i as (${closeTreeOf("?::bigint")}
    ), s as (${wakeParentOf("?::varchar", "?::bigint")}
    ), w as (
      update runs p set
        wake_at = case when p.status = 'waiting' then ?::bigint else p.wake_at end,
        updated_at = ?::bigint
      from r
      where p.tenant_id = r.tenant_id and p.id = r.parent_run_id and p.status not in ${TERMINAL}
    )
    select case when r.parent_run_id is not null then pg_notify('${RUNS_CHANNEL}', '') end as n
    from r`;
  const ev = f.events;
  return CompiledQuery.raw(numbered(text), [
    f.status,
    f.output,
    f.error,
    now,
    lease.tenantId,
    lease.runId,
    lease.owner,
    ev.map((e) => e.seq),
    ev.map((e) => e.type),
    ev.map((e) => e.name),
    ev.map((e) => e.at),
    ev.map((e) => e.data),
    now,
    f.signalId,
    now,
    now,
    now,
  ]);
}

/** One history append of a batch: the lease that fences it and the event. */
export interface BatchedEvent {
  lease: LeaseKey;
  event: EventRow;
}

/**
 * PostgreSQL: many runs' appends in one statement (see write-batcher.ts). Each
 * row is inserted only if its own run's lease holds, exactly as `insertEvent`
 * checks it, and RETURNING tells which were; a taken seq fails the statement
 * as a whole (the batcher then retries each append alone, so one fenced run
 * never fails another's). No row locks: like the single append, the primary
 * key is the fence against a worker that took a run over.
 */
export function pgInsertEvents(batch: readonly BatchedEvent[]): CompiledQuery {
  return CompiledQuery.raw(
    `insert into run_events (tenant_id, run_id, seq, type, name, at, data)
     select e.tenant_id, e.run_id, e.seq, e.type, e.name, e.at, e.data
     from unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::bigint[], $5::varchar[],
                 $6::varchar[], $7::bigint[], $8::text[])
       as e(tenant_id, run_id, owner, seq, type, name, at, data)
     join runs on runs.tenant_id = e.tenant_id and runs.id = e.run_id
       and runs.lease_owner = e.owner and runs.status = 'running'
     returning run_events.tenant_id, run_events.run_id, run_events.seq`,
    [
      batch.map((b) => b.lease.tenantId),
      batch.map((b) => b.lease.runId),
      batch.map((b) => b.lease.owner),
      batch.map((b) => b.event.seq),
      batch.map((b) => b.event.type),
      batch.map((b) => b.event.name),
      batch.map((b) => b.event.at),
      batch.map((b) => b.event.data),
    ],
  );
}

/**
 * PostgreSQL: many starts in one statement (see write-batcher.ts) — each run
 * and its root instance, as `pgStartRun` inserts them, plus one NOTIFY if any
 * run is not leased to its starter. A duplicate run id fails the statement as
 * a whole; the batcher then starts each run alone, so only the duplicate fails.
 */
export function pgStartRuns(rows: readonly StartRow[]): CompiledQuery {
  const col = <T>(f: (s: StartRow) => T) => rows.map(f);
  return CompiledQuery.raw(
    `with v as (
       select * from unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::varchar[],
         $5::varchar[], $6::varchar[], $7::text[], $8::text[], $9::varchar[], $10::varchar[],
         $11::bigint[], $12::bigint[], $13::varchar[], $14::bigint[])
       as v(tenant_id, run_id, workflow, instance_id, definition_id, started_by, vars, input,
            status, parent_run_id, now, wake_at, lease_owner, lease_until)
     ), i as (
       insert into instances (tenant_id, id, kind, definition_id, definition_key,
         parent_instance_id, root_instance_id, status, process_state, vars, started_by,
         created_at, completed_at, on_all_completed, joined_at)
       select tenant_id, instance_id, 'process', definition_id, workflow, null, instance_id,
         'running', 'open', vars, started_by, now, null, null, null
       from v
     ), r as (
       insert into runs (tenant_id, id, workflow, status, input, output, error,
         root_instance_id, parent_run_id, created_at, updated_at, wake_at, lease_owner,
         lease_until, cancel_requested, generation, first_seq)
       select tenant_id, run_id, workflow, status, input, null, null, instance_id,
         parent_run_id, now, now, wake_at, lease_owner, lease_until, 0, 0, 0
       from v
     )
     select pg_notify('${RUNS_CHANNEL}', '') where $15::boolean`,
    [
      col((s) => s.tenantId),
      col((s) => s.runId),
      col((s) => s.workflow),
      col((s) => s.instanceId),
      col((s) => s.definitionId),
      col((s) => s.startedBy),
      col((s) => s.vars),
      col((s) => s.input),
      col((s) => s.status),
      col((s) => s.parentRunId),
      col((s) => s.now),
      col((s) => s.wakeAt),
      col((s) => s.leaseOwner),
      col((s) => s.leaseUntil),
      rows.some((s) => s.notify),
    ],
  );
}

/**
 * PostgreSQL: many runs' outcomes in one statement (see write-batcher.ts), each
 * exactly as `pgFinishRun` writes it; RETURNING names the runs whose lease held.
 * The runs' rows are locked first in (tenant_id, id) order, so two batches
 * cannot deadlock over them (the heartbeat skips locked rows). A parent finishing in the same batch as its child is not woken (it is
 * finishing; updating its row twice in one statement is undefined). A taken seq
 * or a deadlock fails the statement as a whole and the batcher retries each
 * run alone.
 */
export function pgFinishRuns(rows: readonly FinishRow[]): CompiledQuery {
  const col = <T>(f: (s: FinishRow) => T) => rows.map(f);
  const evs = rows.flatMap((f) => f.events.map((e) => ({ f, e })));
  return CompiledQuery.raw(
    `with f as (
       select * from unnest($1::varchar[], $2::varchar[], $3::varchar[], $4::varchar[],
         $5::text[], $6::text[], $7::bigint[], $8::varchar[])
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
       from r join unnest($9::varchar[], $10::varchar[], $11::bigint[], $12::varchar[],
         $13::varchar[], $14::bigint[], $15::text[])
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
    [
      col((f) => f.lease.tenantId),
      col((f) => f.lease.runId),
      col((f) => f.lease.owner),
      col((f) => f.status),
      col((f) => f.output),
      col((f) => f.error),
      col((f) => f.now),
      col((f) => f.signalId),
      evs.map((x) => x.f.lease.tenantId),
      evs.map((x) => x.f.lease.runId),
      evs.map((x) => x.e.seq),
      evs.map((x) => x.e.type),
      evs.map((x) => x.e.name),
      evs.map((x) => x.e.at),
      evs.map((x) => x.e.data),
    ],
  );
}
