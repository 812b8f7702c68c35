/**
 * What the run store's operations share: the database type, the row shapes
 * they bind, and the conversions between stored rows and domain values.
 */
import type { Kysely, Selectable } from "kysely";
import type { Run, RunEvent, RunStatus } from "../../../../domain/run.ts";
import type { WorkflowFailure } from "../../../../domain/workflow-failure.ts";
import type { StoreSchema } from "../../db-schema.ts";
import type { RunSchema, RunsTable } from "../run-schema.ts";

/** The store's Kysely instance, typed with the durable tables too. */
export type RunDb = Kysely<StoreSchema & RunSchema>;

/** The lease that fences a write: (tenant, run) held by `owner`. */
export interface LeaseKey {
  tenantId: string;
  runId: string;
  owner: string;
}

/** A history event as stored (`data` is JSON text). */
export interface EventRow {
  seq: number;
  type: string;
  name: string | null;
  at: number;
  data: string | null;
}

export const num = (v: number | string): number => Number(v);
export const nnum = (v: number | string | null): number | null => (v === null ? null : Number(v));
export const toText = (v: unknown): string => JSON.stringify(v === undefined ? null : v);
export const fromText = (v: string | null): unknown => (v === null ? null : JSON.parse(v));
/** MariaDB and SQLite return 0/1, PostgreSQL may return a boolean. */
export const flag = (v: number | string | boolean): boolean => Number(v) === 1 || v === true;

export const eventRow = (e: RunEvent): EventRow => ({
  seq: e.seq,
  type: e.type,
  name: e.name,
  at: e.at,
  data: e.data === undefined || e.data === null ? null : JSON.stringify(e.data),
});

export function runFromRow(r: Selectable<RunsTable>): Run {
  return {
    tenantId: r.tenant_id,
    id: r.id,
    workflow: r.workflow,
    status: r.status as RunStatus,
    input: fromText(r.input),
    output: fromText(r.output),
    error: fromText(r.error) as WorkflowFailure | null,
    rootInstanceId: r.root_instance_id,
    parentRunId: r.parent_run_id,
    startedBy: r.started_by,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    wakeAt: nnum(r.wake_at),
    leaseOwner: r.lease_owner,
    leaseUntil: nnum(r.lease_until),
    cancelRequested: flag(r.cancel_requested),
    generation: num(r.generation),
    firstSeq: num(r.first_seq),
    stalledExecutions: num(r.stalled_executions),
  };
}
