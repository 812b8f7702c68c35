/**
 * A published version marked retracted: one conditional UPDATE, then a read
 * only to tell "already" from "missing". In a transaction that raises the
 * tenant's revision first: a retraction changes which version is a key's
 * head, so it queues behind (and before) the tenant's publishes like they do.
 */
import type { Kysely } from "kysely";
import { DRAFT_VERSION } from "../../../../domain/definition-version.ts";
import type { RetractOutcome } from "../../../../engine/definitions/definition-version-store-port.ts";
import type { StoreSchema } from "../../db-schema.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { VersionDb } from "../version-rows.ts";
import { raiseTenantRevision } from "./raise-tenant-revision.ts";

export async function retractVersion(
  db: Kysely<StoreSchema>,
  parts: StoreDialect,
  c: { tenantId: string; key: string; version: number },
): Promise<RetractOutcome> {
  if (c.version === DRAFT_VERSION) return "missing";
  return db.transaction().execute(async (trx) => {
    await raiseTenantRevision(trx, parts, c.tenantId);
    return retractIn(trx, c);
  });
}

async function retractIn(
  db: VersionDb,
  c: { tenantId: string; key: string; version: number },
): Promise<RetractOutcome> {
  const r = await db
    .updateTable("definition_versions")
    .set({ status: "retracted" })
    .where("tenant_id", "=", c.tenantId)
    .where("key", "=", c.key)
    .where("version", "=", c.version)
    .where("status", "=", "published")
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 1) return "retracted";
  const row = await db
    .selectFrom("definition_versions")
    .select("status")
    .where("tenant_id", "=", c.tenantId)
    .where("key", "=", c.key)
    .where("version", "=", c.version)
    .executeTakeFirst();
  return row?.status === "retracted" ? "already" : "missing";
}
