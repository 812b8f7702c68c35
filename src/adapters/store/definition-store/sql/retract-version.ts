/** A published version marked retracted: one conditional UPDATE, then a read only to tell "already" from "missing". */
import { DRAFT_VERSION } from "../../../../domain/definition-version.ts";
import type { RetractOutcome } from "../../../../engine/definitions/definition-version-store.ts";
import type { VersionDb } from "../version-rows.ts";

export async function retractVersion(
  db: VersionDb,
  c: { tenantId: string; key: string; version: number },
): Promise<RetractOutcome> {
  if (c.version === DRAFT_VERSION) return "missing";
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
