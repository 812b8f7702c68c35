/**
 * 017: what a person reads on a task (domain/task-details.ts) in the task's
 * own columns: title, description, priority (0–100, 50 when not given, which
 * existing tasks get too), due and follow-up times. One ALTER per column:
 * SQLite adds one column per statement.
 */
import type { Kysely, Migration } from "kysely";
import { DEFAULT_TASK_PRIORITY, MAX_TASK_TITLE_LENGTH } from "../../../domain/task-details.ts";

export function taskDetails(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tasks = () => db.schema.alterTable("tasks");
      await tasks().addColumn("title", `varchar(${MAX_TASK_TITLE_LENGTH})`).execute();
      // Up to MAX_TASK_DESCRIPTION_LENGTH characters: past what MariaDB keeps in a varchar row.
      await tasks().addColumn("description", "text").execute();
      await tasks()
        .addColumn("priority", "integer", (c) => c.notNull().defaultTo(DEFAULT_TASK_PRIORITY))
        .execute();
      await tasks().addColumn("due_at", "bigint").execute();
      await tasks().addColumn("follow_up_at", "bigint").execute();
    },
  };
}
