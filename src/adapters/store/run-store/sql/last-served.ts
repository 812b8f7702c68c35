/**
 * When a worker last said it serves `name` (a workflow, or a code step): the
 * newest seen_at among the nodes' rows (the primary key's prefix is the name,
 * so this reads a few index entries).
 */
import type { ServedKind } from "../../../../engine/durable/run-store-port.ts";
import type { ServedSchema } from "../served-schema.ts";
import { nnum, type RunDb } from "./run-rows.ts";

export async function lastServed(
  runDb: RunDb,
  name: string,
  kind: ServedKind = "workflow",
): Promise<number | null> {
  const db = runDb.withTables<ServedSchema>();
  const row =
    kind === "step"
      ? await db
          .selectFrom("served_steps")
          .select((eb) => eb.fn.max("seen_at").as("seen_at"))
          .where("step", "=", name)
          .executeTakeFirst()
      : await db
          .selectFrom("served_workflows")
          .select((eb) => eb.fn.max("seen_at").as("seen_at"))
          .where("workflow", "=", name)
          .executeTakeFirst();
  return nnum(row?.seen_at ?? null);
}
