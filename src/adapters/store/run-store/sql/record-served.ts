/**
 * A worker's periodic word that it serves its workflows: rows nobody refreshed
 * since `forgetBefore` are deleted first (dead or stopped nodes; every process
 * has a new node id, so a restart leaves its old rows behind), then the
 * node's rows are written with seen_at = now: its workflows, and its code steps.
 *
 * Two autocommit statements, no transaction: each node writes only its own
 * rows, and a delete that runs between them cannot touch rows this fresh.
 */
import type { ServedRecord } from "../../../../engine/durable/run-store-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { ServedSchema } from "../served-schema.ts";
import type { RunDb } from "./run-rows.ts";

export async function recordServed(
  runDb: RunDb,
  parts: Pick<StoreDialect, "insertIgnore">,
  r: ServedRecord,
): Promise<{ recorded: number; forgotten: number }> {
  const db = runDb.withTables<ServedSchema>();
  const deleted = await db
    .deleteFrom("served_workflows")
    .where("seen_at", "<", r.forgetBefore)
    .executeTakeFirst();
  const deletedSteps = await db
    .deleteFrom("served_steps")
    .where("seen_at", "<", r.forgetBefore)
    .executeTakeFirst();
  const forgotten = Number(deleted.numDeletedRows) + Number(deletedSteps.numDeletedRows);
  const steps = r.steps ?? [];
  if (r.workflows.length > 0) {
    const insert = db
      .insertInto("served_workflows")
      .values(r.workflows.map((workflow) => ({ workflow, node_id: r.node, seen_at: r.now })));
    if (parts.insertIgnore === "on-conflict-do-nothing") {
      await insert
        .onConflict((oc) => oc.columns(["workflow", "node_id"]).doUpdateSet({ seen_at: r.now }))
        .execute();
    } else {
      await insert.onDuplicateKeyUpdate({ seen_at: r.now }).execute();
    }
  }
  if (steps.length > 0) {
    const insert = db
      .insertInto("served_steps")
      .values(steps.map((step) => ({ step, node_id: r.node, seen_at: r.now })));
    if (parts.insertIgnore === "on-conflict-do-nothing") {
      await insert
        .onConflict((oc) => oc.columns(["step", "node_id"]).doUpdateSet({ seen_at: r.now }))
        .execute();
    } else {
      await insert.onDuplicateKeyUpdate({ seen_at: r.now }).execute();
    }
  }
  return { recorded: r.workflows.length + steps.length, forgotten };
}
