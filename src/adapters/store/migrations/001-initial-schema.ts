/**
 * 001: definitions, instances, tasks — the human-task core (docs/architecture.md, Glossary).
 *
 * Keys: every primary key is (tenant_id, id). Ids are UUIDv7 and unique on their
 * own, but leading with tenant_id makes "every query filters by tenant" an index
 * prefix everywhere and lets foreign keys carry the tenant, so a task can never
 * point at another tenant's instance.
 *
 * Sizes: MariaDB indexes at most 3,072 bytes per key and utf8mb4 counts 4 bytes
 * per character, so a key stays under 768 characters. The widest key here is the
 * inbox index: tenant 64 + kind 8 + assignee 128 + status 16 + id 36 = 252 chars
 * (1,008 bytes).
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH, MAX_NAME_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)"; // TENANT_PATTERN allows 1–64 characters
const UUID = "varchar(36)"; // UUIDv7 in its 36-character text form
const EXTERNAL_ID = `varchar(${MAX_ID_LENGTH})`; // users, groups, definition keys
const NAME = `varchar(${MAX_NAME_LENGTH})`;
const ENUM = "varchar(16)"; // status, kind, process state

export function initialSchema(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  const json = sql.raw(d.jsonText);

  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("definitions")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("id", UUID, (c) => c.notNull())
        .addColumn("key", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("name", NAME, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("definitions_pk", ["tenant_id", "id"])
        // ensureDefinition's insert-if-absent relies on this key to be race-free.
        .addUniqueConstraint("definitions_tenant_key_uq", ["tenant_id", "key"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createTable("instances")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("id", UUID, (c) => c.notNull())
        .addColumn("kind", ENUM, (c) => c.notNull())
        .addColumn("definition_id", UUID, (c) => c.notNull())
        .addColumn("definition_key", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("parent_instance_id", UUID)
        .addColumn("root_instance_id", UUID, (c) => c.notNull())
        .addColumn("status", ENUM, (c) => c.notNull())
        .addColumn("process_state", ENUM)
        .addColumn("vars", json, (c) => c.notNull())
        .addColumn("started_by", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("completed_at", "bigint")
        .addColumn("on_all_completed", json)
        .addColumn("joined_at", "bigint")
        .addPrimaryKeyConstraint("instances_pk", ["tenant_id", "id"])
        .addForeignKeyConstraint(
          "instances_parent_fk",
          ["tenant_id", "parent_instance_id"],
          "instances",
          ["tenant_id", "id"],
        )
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createTable("tasks")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("id", UUID, (c) => c.notNull())
        .addColumn("instance_id", UUID, (c) => c.notNull())
        .addColumn("root_instance_id", UUID, (c) => c.notNull())
        .addColumn("definition_key", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("assignee_kind", "varchar(8)", (c) => c.notNull())
        .addColumn("assignee_id", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("assigned_by", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("status", ENUM, (c) => c.notNull())
        .addColumn("claimed_by", EXTERNAL_ID)
        .addColumn("claimed_at", "bigint")
        .addColumn("completed_by", EXTERNAL_ID)
        .addColumn("completed_at", "bigint")
        .addColumn("vars", json)
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("tasks_pk", ["tenant_id", "id"])
        .addForeignKeyConstraint("tasks_instance_fk", ["tenant_id", "instance_id"], "instances", [
          "tenant_id",
          "id",
        ])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await createIndexes(db, d);
    },
  };
}

async function createIndexes(db: Kysely<unknown>, d: StoreDialect): Promise<void> {
  const index = (name: string, table: string, columns: string[]) =>
    db.schema.createIndex(name).on(table).columns(columns);

  // The inbox (sql-reads.ts `inbox`) reads one (kind, id) assignee at a time in id
  // order. Done and cancelled tasks pile up forever while open ones stay few, so
  // where partial indexes exist the index holds open tasks only and stays small.
  if (d.partialIndexes) {
    await index("tasks_inbox_open_ix", "tasks", ["tenant_id", "assignee_kind", "assignee_id", "id"])
      .where(sql.ref("status"), "=", sql.lit("open"))
      .execute();
    await index("tasks_claimed_ix", "tasks", ["tenant_id", "claimed_by", "id"])
      .where(sql.ref("status"), "=", sql.lit("claimed"))
      .execute();
    await index("instances_processes_ix", "instances", [
      "tenant_id",
      "started_by",
      "process_state",
      "id",
    ])
      .where(
        sql<boolean>`${sql.ref("kind")} = 'process' and ${sql.ref("parent_instance_id")} is null`,
      )
      .execute();
  } else {
    await index("tasks_inbox_ix", "tasks", [
      "tenant_id",
      "assignee_kind",
      "assignee_id",
      "status",
      "id",
    ]).execute();
    await index("tasks_claimed_ix", "tasks", ["tenant_id", "claimed_by", "status", "id"]).execute();
    await index("instances_processes_ix", "instances", [
      "tenant_id",
      "started_by",
      "process_state",
      "id",
    ]).execute();
  }

  // listTasksOfInstance / countTasksByStatus, and the index InnoDB needs for tasks_instance_fk.
  await index("tasks_instance_ix", "tasks", ["tenant_id", "instance_id", "id"]).execute();
  // cancelOpenTasksOfRoot: the open and claimed tasks of one tree.
  await index("tasks_root_status_ix", "tasks", [
    "tenant_id",
    "root_instance_id",
    "status",
  ]).execute();
  // listChildren, and the index InnoDB needs for instances_parent_fk.
  await index("instances_parent_ix", "instances", [
    "tenant_id",
    "parent_instance_id",
    "id",
  ]).execute();
  // completeTree: every instance of one tree.
  await index("instances_root_ix", "instances", ["tenant_id", "root_instance_id", "id"]).execute();
}
