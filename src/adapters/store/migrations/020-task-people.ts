/**
 * 020: who may act on a task besides its assignee, in its own columns: the
 * four-eyes rule (domain/task-exclusions.ts) as JSON text — `{ users, starter,
 * earlierCompleters }`, null when it excludes nobody — and delegation
 * (domain/task-delegation.ts): the owner a delegated task goes back to, and
 * whether the delegation is pending or resolved.
 */
import type { Kysely, Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";

export function taskPeople(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const tasks = () => db.schema.alterTable("tasks");
      await tasks().addColumn("exclusions", "text").execute();
      await tasks().addColumn("owner", `varchar(${MAX_ID_LENGTH})`).execute();
      await tasks().addColumn("delegation", "varchar(16)").execute();
    },
  };
}
