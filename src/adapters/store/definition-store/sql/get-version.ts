/** One version of a key (0: the draft). */
import type { DefinitionVersion } from "../../../../domain/definition-version.ts";
import { versionFromRow, type VersionDb } from "../version-rows.ts";

export async function getVersion(
  db: VersionDb,
  tenantId: string,
  key: string,
  version: number,
): Promise<DefinitionVersion | undefined> {
  const row = await db
    .selectFrom("definition_versions")
    .selectAll()
    .where("tenant_id", "=", tenantId)
    .where("key", "=", key)
    .where("version", "=", version)
    .executeTakeFirst();
  return row && versionFromRow(row);
}
