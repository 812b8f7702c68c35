/**
 * 016: code steps that worker nodes serve, as 003 records their workflows, so
 * validating and publishing a definition on any node (an API-only one, the
 * CLI) can refuse a `call` of a step no worker has (definitions.md,
 * References). Same shape and lifetime as served_workflows: one row per
 * (step, node), refreshed by the worker, forgotten after the TTL.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function servedSteps(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("served_steps")
        .addColumn("step", `varchar(${MAX_ID_LENGTH})`, (c) => c.notNull())
        // The worker's owner id (host:pid:random), as served_workflows.node_id.
        .addColumn("node_id", "varchar(128)", (c) => c.notNull())
        .addColumn("seen_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("served_steps_pk", ["step", "node_id"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
