/**
 * 002: durable runs — runs, their history (run_events) and their signals
 * (run_signals); see docs/durable.md.
 *
 * The claim query is `wake_at <= now` over one index: wake_at is "when a worker
 * must next look at the run" (pending: start time; waiting: timer or timeout,
 * null when only a signal can wake it; running: lease expiry; terminal: null),
 * so pending runs, due timers, woken waits and dead workers' runs are one range.
 *
 * run_events' primary key (tenant_id, run_id, seq) is the fence between a
 * worker and the one that took its run over: both cannot write the same seq.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH, MAX_NAME_LENGTH } from "../../../domain/limits.ts";
import { MAX_RUN_ID_LENGTH } from "../../../domain/run.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)";
const UUID = "varchar(36)";
const RUN_ID = `varchar(${MAX_RUN_ID_LENGTH})`;
const WORKFLOW = `varchar(${MAX_ID_LENGTH})`;
const NAME = `varchar(${MAX_NAME_LENGTH})`;
const ENUM = "varchar(16)";

export function durableRuns(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  const json = sql.raw(d.jsonText);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("runs")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("id", RUN_ID, (c) => c.notNull())
        .addColumn("workflow", WORKFLOW, (c) => c.notNull())
        .addColumn("status", ENUM, (c) => c.notNull())
        .addColumn("input", json, (c) => c.notNull())
        .addColumn("output", json)
        .addColumn("error", json)
        .addColumn("root_instance_id", UUID)
        .addColumn("parent_run_id", RUN_ID)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addColumn("wake_at", "bigint")
        .addColumn("lease_owner", "varchar(128)")
        .addColumn("lease_until", "bigint")
        .addColumn("cancel_requested", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("generation", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("first_seq", "bigint", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("runs_pk", ["tenant_id", "id"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createTable("run_events")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("run_id", RUN_ID, (c) => c.notNull())
        .addColumn("seq", "bigint", (c) => c.notNull())
        .addColumn("type", ENUM, (c) => c.notNull())
        .addColumn("name", NAME)
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("data", json)
        .addPrimaryKeyConstraint("run_events_pk", ["tenant_id", "run_id", "seq"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createTable("run_signals")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("run_id", RUN_ID, (c) => c.notNull())
        .addColumn("id", UUID, (c) => c.notNull())
        .addColumn("name", NAME, (c) => c.notNull())
        .addColumn("payload", json, (c) => c.notNull())
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("consumed_seq", "bigint")
        // UUIDv7 ids: the primary key order is arrival order within a run.
        .addPrimaryKeyConstraint("run_signals_pk", ["tenant_id", "run_id", "id"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      const index = (name: string, table: string, columns: string[]) =>
        db.schema.createIndex(name).on(table).columns(columns);
      if (d.partialIndexes) {
        // Terminal runs (the vast majority, eventually) have no wake_at and no lease.
        await index("runs_wake_ix", "runs", ["wake_at"])
          .where(sql.ref("wake_at"), "is not", null)
          .execute();
        await index("runs_lease_owner_ix", "runs", ["lease_owner"])
          .where(sql.ref("lease_owner"), "is not", null)
          .execute();
      } else {
        await index("runs_wake_ix", "runs", ["wake_at"]).execute();
        await index("runs_lease_owner_ix", "runs", ["lease_owner"]).execute();
      }
      // GET /v1/runs?status=…, ?workflow=…: keyset pages in id order.
      await index("runs_status_ix", "runs", ["tenant_id", "status", "id"]).execute();
      await index("runs_workflow_ix", "runs", ["tenant_id", "workflow", "id"]).execute();
    },
  };
}
