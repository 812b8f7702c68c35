/**
 * Insert a definition unless (tenant, key) exists, then read the row that is
 * there. Shared by the human-task store (`ensureDefinition` of a use case) and
 * the run store (a workflow's definition row on its first run).
 *
 * Race-free because the unique key (tenant_id, key) arbitrates: a concurrent
 * inserter of the same key blocks on the winner's uncommitted index entry, then
 * does nothing; its following SELECT is a new statement under READ COMMITTED
 * (PostgreSQL; MariaDB as configured in dialects/mysql/mysql-dialect.ts), so it
 * sees the winner's committed row. On MariaDB `ON DUPLICATE KEY UPDATE id = id`
 * rather than `INSERT IGNORE`: IGNORE also turns real errors (a too-long value)
 * into warnings and truncates.
 */
import type { Kysely, Transaction } from "kysely";
import type { Definition } from "../../../domain/definition.ts";
import type { StoreSchema } from "../db-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { definitionFromRow, definitionToRow } from "../row-mapping.ts";

export async function ensureDefinition(
  db: Kysely<StoreSchema> | Transaction<StoreSchema>,
  parts: Pick<StoreDialect, "insertIgnore">,
  d: Definition,
): Promise<Definition> {
  const insert = db.insertInto("definitions").values(definitionToRow(d));
  if (parts.insertIgnore === "on-conflict-do-nothing") {
    await insert.onConflict((oc) => oc.columns(["tenant_id", "key"]).doNothing()).execute();
  } else {
    await insert.onDuplicateKeyUpdate({ id: (eb) => eb.ref("definitions.id") }).execute();
  }
  const row = await db
    .selectFrom("definitions")
    .selectAll()
    .where("tenant_id", "=", d.tenantId)
    .where("key", "=", d.key)
    .executeTakeFirst();
  if (!row) throw new Error(`definition '${d.key}' vanished right after its upsert`);
  return definitionFromRow(row);
}
