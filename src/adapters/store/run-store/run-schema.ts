/** The durable tables as Kysely sees them (see migrations/002-durable-runs.ts). */
import type { ColumnType } from "kysely";

type Millis = ColumnType<number | string, number, number>;
type NullableMillis = ColumnType<number | string | null, number | null, number | null>;

export interface RunsTable {
  tenant_id: string;
  id: string;
  workflow: string;
  status: string;
  input: string;
  output: string | null;
  error: string | null;
  root_instance_id: string | null;
  parent_run_id: string | null;
  /** 004: null only for runs stored before it without a root instance. */
  started_by: string | null;
  created_at: Millis;
  updated_at: Millis;
  wake_at: NullableMillis;
  lease_owner: string | null;
  lease_until: NullableMillis;
  cancel_requested: ColumnType<number | string | boolean, number, number>;
  generation: ColumnType<number | string, number, number>;
  first_seq: Millis;
  /** 014: claims since the run last parked or continued as new (quarantine). */
  stalled_executions: ColumnType<number | string, number | undefined, number>;
  /** 014: the highest history seq the last claim saw (-1: none); progress past it resets the count. */
  stalled_seq: ColumnType<number | string | null, number | null | undefined, number | null>;
}

export interface RunEventsTable {
  tenant_id: string;
  run_id: string;
  seq: Millis;
  type: string;
  name: string | null;
  at: Millis;
  data: string | null;
}

export interface RunSignalsTable {
  tenant_id: string;
  run_id: string;
  id: string;
  name: string;
  payload: string;
  at: Millis;
  consumed_seq: NullableMillis;
}

export interface RunSchema {
  runs: RunsTable;
  run_events: RunEventsTable;
  run_signals: RunSignalsTable;
}
