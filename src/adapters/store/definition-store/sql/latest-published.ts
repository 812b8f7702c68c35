/** The key's highest version that is published (retracted ones skipped), by the primary key backwards. */
import type { DefinitionVersion } from "../../../../domain/definition-version.ts";
import { versionFromRow, type VersionDb } from "../version-rows.ts";

export async function latestPublished(
  db: VersionDb,
  tenantId: string,
  key: string,
): Promise<DefinitionVersion | undefined> {
  const row = await db
    .selectFrom("definition_versions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("key", "=", key)
    .where("status", "=", "published")
    .orderBy("version", "desc")
    .limit(1)
    .executeTakeFirst();
  return row && versionFromRow(row);
}
