/**
 * 019: the audit trail of tasks (domain/task-event.ts). Every change of a task
 * row — its insert and each update — appends a row to task_events, written by
 * a row trigger, so it is in the same transaction as the change whichever
 * statement made it (an ORM update, PostgreSQL's one-statement assignment and
 * completion, a bulk cancel): none can be missed by a path that forgot it.
 *
 * The trigger decides nothing. An insert is `created`, by the assigner, when the
 * task was made; an update is what the engine wrote in the task's change columns
 * with it — `change_kind`, `changed_by` (null: the engine itself), `changed_at`,
 * `change_reason` — which every update sets (the use cases decide them). Each
 * event keeps the task's status, assignee, claimer, action and comment as they
 * were after the change. A comment is an event of its own (inserted by the
 * store, not by a trigger: it changes no task column).
 *
 * Tasks made before 019 get their history as far as their columns tell it:
 * created, then claimed, completed or cancelled.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { withGrowingId } from "./growing-id.ts";

const TENANT = "varchar(64)";
const UUID = "varchar(36)";
const EXTERNAL_ID = `varchar(${MAX_ID_LENGTH})`;

/** The columns an event copies from its task row (`NEW.` in a trigger). */
const COPIED = ["status", "assignee_kind", "assignee_id", "claimed_by", "action", "comment"];
const EVENT_COLUMNS = [
  "tenant_id",
  "task_id",
  "instance_id",
  "root_instance_id",
  "type",
  "actor",
  "at",
  "reason",
  ...COPIED,
].join(", ");

/** The event a trigger writes, from the task row `r` (`NEW`), as a SELECT list. */
function eventValues(r: string, op: "insert" | "update"): string {
  const who =
    op === "insert"
      ? `'created', ${r}.assigned_by, ${r}.created_at, null`
      : `${r}.change_kind, ${r}.changed_by, ${r}.changed_at, ${r}.change_reason`;
  return [
    `${r}.tenant_id, ${r}.id, ${r}.instance_id, ${r}.root_instance_id`,
    who,
    COPIED.map((c) => `${r}.${c}`).join(", "),
  ].join(", ");
}

export function taskEvents(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tasks = () => db.schema.alterTable("tasks");
      await tasks()
        .addColumn("change_kind", "varchar(16)", (c) => c.notNull().defaultTo("created"))
        .execute();
      await tasks().addColumn("changed_by", EXTERNAL_ID).execute();
      await tasks().addColumn("changed_at", "bigint").execute();
      await tasks().addColumn("change_reason", "text").execute();

      await db.schema
        .createTable("task_events")
        .$call((b) => withGrowingId(d, b))
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("task_id", UUID, (c) => c.notNull())
        .addColumn("instance_id", UUID, (c) => c.notNull())
        .addColumn("root_instance_id", UUID, (c) => c.notNull())
        .addColumn("type", "varchar(16)", (c) => c.notNull())
        .addColumn("actor", EXTERNAL_ID)
        .addColumn("at", "bigint", (c) => c.notNull())
        .addColumn("reason", "text")
        .addColumn("status", "varchar(16)", (c) => c.notNull())
        .addColumn("assignee_kind", "varchar(8)", (c) => c.notNull())
        .addColumn("assignee_id", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("claimed_by", EXTERNAL_ID)
        .addColumn("action", "varchar(64)")
        .addColumn("comment", "text")
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
      // A task's trail and a process's, each in the order written.
      await db.schema
        .createIndex("task_events_task_idx")
        .on("task_events")
        .columns(["tenant_id", "task_id", "id"])
        .execute();
      await db.schema
        .createIndex("task_events_root_idx")
        .on("task_events")
        .columns(["tenant_id", "root_instance_id", "id"])
        .execute();

      await backfill(db);

      const insertFrom = (op: "insert" | "update") =>
        `insert into task_events (${EVENT_COLUMNS}) values (${eventValues("NEW", op)})`;
      if (d.triggerFunctions) {
        await sql
          .raw(
            `create function task_change_event() returns trigger language plpgsql as $$
            begin
              if tg_op = 'INSERT' then ${insertFrom("insert")};
              else ${insertFrom("update")};
              end if;
              return null;
            end $$`,
          )
          .execute(db);
        await sql
          .raw(
            `create trigger tasks_change_event after insert or update on tasks
            for each row execute function task_change_event()`,
          )
          .execute(db);
      } else {
        for (const op of ["insert", "update"] as const) {
          await sql
            .raw(
              `create trigger tasks_${op}_event after ${op} on tasks
              for each row begin ${insertFrom(op)}; end`,
            )
            .execute(db);
        }
      }
    },
  };
}

/** The history that the columns of tasks made before 019 tell, in time order. */
async function backfill(db: Kysely<unknown>): Promise<void> {
  const base = "tenant_id, id, instance_id, root_instance_id";
  const copied = COPIED.join(", ");
  await sql
    .raw(
      `insert into task_events (${EVENT_COLUMNS})
      select ${EVENT_COLUMNS.replaceAll("task_id", "id")} from (
        select ${base}, 'created' as type, assigned_by as actor, created_at as at,
          null as reason, 'open' as status, assignee_kind, assignee_id,
          null as claimed_by, null as action, null as comment, 0 as step
        from tasks
        union all
        select ${base}, 'claimed', claimed_by, claimed_at, null, ${copied}, 1
        from tasks where status = 'claimed' and claimed_at is not null
        union all
        select ${base}, 'completed', completed_by, completed_at, null, ${copied}, 1
        from tasks where status = 'done' and completed_at is not null
        union all
        select ${base}, 'cancelled', null, completed_at, null, ${copied}, 1
        from tasks where status = 'cancelled' and completed_at is not null
      ) h order by at, step`,
    )
    .execute(db);
}
