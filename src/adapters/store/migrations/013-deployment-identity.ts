/**
 * 013: the deployment's identity (src/domain/deployment-id.ts): one row holding
 * a random id, created with the schema — a fresh database gets one here, and
 * so does a database migrated from an older release. Nodes read it once at
 * start (after migrating) and put it into every key they share with other
 * deployments (docs/definition-cache.md, Keys; docs/coordination.md).
 *
 * `id` is the primary key, so the table cannot hold the same id twice; the
 * migration runs once per database under the migrator's lock, so it holds one
 * row. Never updated: a changed id would move every shared key at once.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { newDeploymentId } from "../../../domain/deployment-id.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function deploymentIdentity(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("deployment_identity")
        .addColumn("id", "varchar(64)", (c) => c.notNull().primaryKey())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
      await (db as Kysely<{ deployment_identity: { id: string; created_at: number } }>)
        .insertInto("deployment_identity")
        .values({ id: newDeploymentId(), created_at: Date.now() })
        .execute();
    },
  };
}
