/**
 * 010: one row per tenant that has published a definition, with a revision
 * that every publish and retract of the tenant raises in its transaction.
 *
 * The row is what serialises the checks across a tenant's definitions (two
 * keys must not take one trigger route): a publish raises the revision first,
 * which holds the row's lock (PostgreSQL, MariaDB; SQLite has one writer)
 * until it commits, so the next publish of the tenant reads the heads after
 * it. The revision is also what a node can compare to know its route table is
 * behind the store.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)"; // TENANT_PATTERN allows 1–64 characters

export function definitionTenants(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("definition_tenants")
        .addColumn("tenant_id", TENANT, (c) => c.notNull().primaryKey())
        .addColumn("revision", "bigint", (c) => c.notNull())
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
