/**
 * 004: the list filters — who started a run (`runs.started_by`), and the
 * indexes behind GET /v1/runs?startedBy=&createdAfter=&createdBefore= and
 * GET /v1/tasks?status=claimed|completed|cancelled|all.
 *
 * Sizes (MariaDB keys stay under 768 characters, see 001): the widest key here
 * is tasks_finished_ix: tenant 64 + kind 8 + assignee 128 + status 16 + id 36
 * characters plus an 8-byte bigint.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const USER = `varchar(${MAX_ID_LENGTH})`;

export function runFilters(d: StoreDialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("runs").addColumn("started_by", USER).execute();
      // Runs started before this migration: their root instance has always recorded the
      // starter (createRun writes the same value to both), so old runs filter like new ones.
      // Null stays possible only for a run without a root instance.
      await sql`update runs set started_by = (select i.started_by from instances i
          where i.tenant_id = runs.tenant_id and i.id = runs.root_instance_id)
        where root_instance_id is not null`.execute(db);
      await runIndexes(db);
      await taskIndexes(db, d);
    },
  };
}

const index = (db: Kysely<unknown>, name: string, table: string, columns: string[]) =>
  db.schema.createIndex(name).on(table).columns(columns);

async function runIndexes(db: Kysely<unknown>): Promise<void> {
  // ?startedBy=: keyset pages in id order, like runs_status_ix and runs_workflow_ix.
  await index(db, "runs_started_by_ix", "runs", ["tenant_id", "started_by", "id"]).execute();
  // ?createdAfter=&createdBefore= alone: a one-hour window of a tenant with 10,000,000 runs
  // over a year (~1,150 runs an hour) reads ~1,150 index entries and sorts them, where
  // walking the runs in id order would read every run before the window (up to 10,000,000).
  // With another filter the planner may instead walk that filter's index in id order and
  // check created_at on each row; either way, no full scan of the tenant's runs is needed.
  await index(db, "runs_created_ix", "runs", ["tenant_id", "created_at"]).execute();
}

async function taskIndexes(db: Kysely<unknown>, d: StoreDialect): Promise<void> {
  // ?status=completed for a user: the tasks they completed, newest first. Only done tasks
  // have a completed_by (a cancelled one keeps it null), so a user with 100,000 completed
  // tasks gets a page of 50 from 51 index entries read backwards, not a sort of 100,000.
  const doneBy = index(db, "tasks_done_by_ix", "tasks", [
    "tenant_id",
    "completed_by",
    "completed_at",
    "id",
  ]);
  await (
    d.partialIndexes ? doneBy.where(sql.ref("status"), "=", sql.lit("done")) : doneBy
  ).execute();
  // ?status=completed for a group, ?status=cancelled, ?status=claimed for a group: one range
  // per (assignee, status), already in completion order (claimed tasks: completed_at is null,
  // and they are few — in hand — so sorting them by id is cheap). A group with 1,000,000 done
  // tasks pages its newest 50 from 51 entries instead of sorting the million.
  await index(db, "tasks_finished_ix", "tasks", [
    "tenant_id",
    "assignee_kind",
    "assignee_id",
    "status",
    "completed_at",
    "id",
  ]).execute();
  // ?status=all: one range per assignee in id order, whatever the status. Without it a
  // first page of a group with 1,000,000 finished tasks would read and sort all of them.
  await index(db, "tasks_assignee_ix", "tasks", [
    "tenant_id",
    "assignee_kind",
    "assignee_id",
    "id",
  ]).execute();
}
