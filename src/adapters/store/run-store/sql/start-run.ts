/**
 * Starting a run: its root instance (the starter's process list, inbox) and
 * the run row — one run, or many runs' at once.
 *
 * MariaDB / SQLite: the two INSERTs in one transaction.
 *
 * PostgreSQL: one statement (it was BEGIN, two INSERTs, COMMIT), with the
 * NOTIFY that wakes idle workers when the run is not already leased to the
 * starter. Why single statements with data-modifying CTEs: pg has no
 * pipelining, so each statement is a round trip (~0.15 ms on loopback here
 * plus ~0.1 ms of server CPU), and a BEGIN … COMMIT around three statements
 * costs five; one statement is its own transaction, all of its CTEs or none.
 * A duplicate run id fails the whole statement (unique violation), instance
 * included.
 *
 * Many (PostgreSQL, see write-batcher.ts): each run and its root instance as
 * the single start inserts them, plus one NOTIFY if any run is not leased to
 * its starter. A duplicate run id fails the statement as a whole; the batcher
 * then starts each run alone, so only the duplicate fails.
 */
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { BatchWriter } from "../write-batcher.ts";
import { isDuplicateKey } from "./fencing.ts";
import type { RunDb } from "./run-rows.ts";
import { statement } from "../../sql/statement.ts";
import { notifyRunnable, RUNS_CHANNEL } from "./wake-run.ts";

export interface StartRow {
  tenantId: string;
  runId: string;
  workflow: string;
  instanceId: string;
  definitionId: string;
  definitionKey: string;
  startedBy: string;
  vars: string;
  input: string;
  status: string;
  parentRunId: string | null;
  now: number;
  wakeAt: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  /** NOTIFY idle workers: the run is not leased to its starter. */
  notify: boolean;
}

const INSERT_INSTANCE = `insert into instances (tenant_id, id, kind, definition_id,
    definition_key, parent_instance_id, root_instance_id, status, process_state, vars,
    started_by, created_at, completed_at, on_all_completed, joined_at)
  values (:tenantId, :instanceId, 'process', :definitionId, :definitionKey, null, :instanceId,
    'running', 'open', :vars, :startedBy, :now, null, null, null)`;
const INSERT_RUN = `insert into runs (tenant_id, id, workflow, status, input, output, error,
    root_instance_id, parent_run_id, created_at, updated_at, wake_at, lease_owner,
    lease_until, cancel_requested, generation, first_seq, started_by)
  values (:tenantId, :runId, :workflow, :status, :input, null, null, :instanceId, :parentRunId,
    :now, :now, :wakeAt, :leaseOwner, :leaseUntil, 0, 0, 0, :startedBy)`;

const insertInstance = statement<StartRow>(INSERT_INSTANCE);
const insertRun = statement<StartRow>(INSERT_RUN);

const START_RUN_NOTIFY = statement<StartRow>(
  `with i as (${INSERT_INSTANCE}), r as (${INSERT_RUN} returning 1)
   select pg_notify('${RUNS_CHANNEL}', '') from r`,
).numbered;
const START_RUN = statement<StartRow>(`with i as (${INSERT_INSTANCE}) ${INSERT_RUN}`).numbered;

/** MariaDB / SQLite: the run's root instance, then the run, in one transaction. */
export async function startRun(db: RunDb, parts: StoreDialect, s: StartRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.executeQuery(insertInstance[parts.paramStyle](s));
    await trx.executeQuery(insertRun[parts.paramStyle](s));
  });
}

/**
 * A child run in its parent's process (NewRun.rootInstanceId): the run row
 * alone, pointing at the parent's root instance, and idle workers told.
 */
export async function startRunInProcess(
  db: RunDb,
  parts: StoreDialect,
  s: StartRow,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.executeQuery(insertRun[parts.paramStyle](s));
    if (s.notify) await notifyRunnable(trx, parts);
  });
}

type Columns<T> = { [K in keyof T]: T[K][] };
type StartsParams = Columns<Omit<StartRow, "notify">> & { anyNotify: boolean };

const START_RUNS = statement<StartsParams>(
  `with v as (
     select * from unnest(:tenantId::varchar[], :runId::varchar[], :workflow::varchar[],
       :instanceId::varchar[], :definitionId::varchar[], :definitionKey::varchar[],
       :startedBy::varchar[], :vars::text[],
       :input::text[], :status::varchar[], :parentRunId::varchar[], :now::bigint[],
       :wakeAt::bigint[], :leaseOwner::varchar[], :leaseUntil::bigint[])
     as v(tenant_id, run_id, workflow, instance_id, definition_id, definition_key, started_by,
          vars, input,
          status, parent_run_id, now, wake_at, lease_owner, lease_until)
   ), i as (
     insert into instances (tenant_id, id, kind, definition_id, definition_key,
       parent_instance_id, root_instance_id, status, process_state, vars, started_by,
       created_at, completed_at, on_all_completed, joined_at)
     select tenant_id, instance_id, 'process', definition_id, definition_key, null, instance_id,
       'running', 'open', vars, started_by, now, null, null, null
     from v
   ), r as (
     insert into runs (tenant_id, id, workflow, status, input, output, error,
       root_instance_id, parent_run_id, created_at, updated_at, wake_at, lease_owner,
       lease_until, cancel_requested, generation, first_seq, started_by)
     select tenant_id, run_id, workflow, status, input, null, null, instance_id,
       parent_run_id, now, now, wake_at, lease_owner, lease_until, 0, 0, 0, started_by
     from v
   )
   select pg_notify('${RUNS_CHANNEL}', '') where :anyNotify::boolean`,
).numbered;

function startsParams(rows: readonly StartRow[]): StartsParams {
  const col = <T>(f: (s: StartRow) => T) => rows.map(f);
  return {
    tenantId: col((s) => s.tenantId),
    runId: col((s) => s.runId),
    workflow: col((s) => s.workflow),
    instanceId: col((s) => s.instanceId),
    definitionId: col((s) => s.definitionId),
    definitionKey: col((s) => s.definitionKey),
    startedBy: col((s) => s.startedBy),
    vars: col((s) => s.vars),
    input: col((s) => s.input),
    status: col((s) => s.status),
    parentRunId: col((s) => s.parentRunId),
    now: col((s) => s.now),
    wakeAt: col((s) => s.wakeAt),
    leaseOwner: col((s) => s.leaseOwner),
    leaseUntil: col((s) => s.leaseUntil),
    anyNotify: rows.some((s) => s.notify),
  };
}

/** PostgreSQL (writable CTEs, array parameters): one statement per start or per batch. */
export function startRunWriter(db: RunDb, parts: StoreDialect): BatchWriter<StartRow> {
  return {
    one: async (row) => {
      await db.executeQuery((row.notify ? START_RUN_NOTIFY : START_RUN)(row));
      return true;
    },
    many: async (rows) => {
      await db.executeQuery(START_RUNS(startsParams(rows)));
      return rows.map(() => true);
    },
    isRetryable: (e) => isDuplicateKey(parts, e),
  };
}
