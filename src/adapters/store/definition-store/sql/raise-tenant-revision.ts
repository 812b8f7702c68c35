/**
 * Raises the tenant's definition revision (inserting its row at 1), in the
 * caller's transaction. One upsert, so it is also the tenant's lock: the row
 * stays locked until the transaction ends (PostgreSQL, MariaDB), and on
 * SQLite it is the write that takes the database's one write lock before
 * anything is read. See migrations/010-definition-tenants.ts.
 */
import { sql, type Transaction } from "kysely";
import type { StoreSchema } from "../../db-schema.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";

export async function raiseTenantRevision(
  trx: Transaction<StoreSchema>,
  parts: Pick<StoreDialect, "insertIgnore">,
  tenantId: string,
): Promise<void> {
  const insert = trx.insertInto("definition_tenants").values({ tenant_id: tenantId, revision: 1 });
  if (parts.insertIgnore === "on-conflict-do-nothing") {
    await insert
      .onConflict((oc) =>
        oc.column("tenant_id").doUpdateSet({ revision: sql`definition_tenants.revision + 1` }),
      )
      .execute();
  } else {
    await insert.onDuplicateKeyUpdate({ revision: sql`revision + 1` }).execute();
  }
}
