/**
 * 003: workflows that worker nodes serve (so API-only nodes accept their names).
 *
 * One row per (workflow, node): a worker writes its names when it starts and
 * refreshes `seen_at` periodically; a start on a node that does not have the
 * code accepts a name some worker refreshed recently enough (runs-api.ts,
 * served-workflows.ts).
 *
 * Not per tenant: a worker claims runs of every tenant (claim-runs.ts), so
 * serving a workflow is a property of the code a node runs, not of a tenant.
 * No version column: workflow code is versioned inside a name with
 * ctx.patched(), and the registry knows only names.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function servedWorkflows(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("served_workflows")
        .addColumn("workflow", `varchar(${MAX_ID_LENGTH})`, (c) => c.notNull())
        // The worker's owner id (host:pid:random), as runs.lease_owner.
        .addColumn("node_id", "varchar(128)", (c) => c.notNull())
        .addColumn("seen_at", "bigint", (c) => c.notNull())
        // The start's lookup is by workflow: the key's prefix.
        .addPrimaryKeyConstraint("served_workflows_pk", ["workflow", "node_id"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
