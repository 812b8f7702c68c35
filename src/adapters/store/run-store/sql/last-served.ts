/**
 * When a worker last said it serves `workflow`: the newest seen_at among the
 * nodes' rows (the primary key's prefix is the workflow, so this reads a few
 * index entries).
 */
import type { ServedSchema } from "../served-schema.ts";
import { nnum, type RunDb } from "./run-rows.ts";

export async function lastServed(runDb: RunDb, workflow: string): Promise<number | null> {
  const row = await runDb
    .withTables<ServedSchema>()
    .selectFrom("served_workflows")
    .select((eb) => eb.fn.max("seen_at").as("seen_at"))
    .where("workflow", "=", workflow)
    .executeTakeFirst();
  return nnum(row?.seen_at ?? null);
}
