/** The draft and every version of a key, without bodies, in number order. */
import type { VersionSummary } from "../../../../domain/definition-version.ts";
import { SUMMARY_COLUMNS, summaryFromRow, type VersionDb } from "../version-rows.ts";

export async function listVersions(
  db: VersionDb,
  tenantId: string,
  key: string,
): Promise<VersionSummary[]> {
  const rows = await db
    .selectFrom("definition_versions")
    .select(SUMMARY_COLUMNS)
    .where("tenant_id", "=", tenantId)
    .where("key", "=", key)
    .orderBy("version")
    .execute();
  return rows.map(summaryFromRow);
}
