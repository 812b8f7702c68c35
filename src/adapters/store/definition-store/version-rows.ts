/** definition_versions rows ↔ domain values; the store's Kysely handle type. */
import type { Kysely, Selectable, Transaction } from "kysely";
import type {
  DefinitionVersion,
  VersionStatus,
  VersionSummary,
} from "../../../domain/definition-version.ts";
import type { DefinitionVersionsTable, StoreSchema } from "../db-schema.ts";
import { millis } from "../row-mapping.ts";

export type VersionDb = Kysely<StoreSchema> | Transaction<StoreSchema>;

/** Columns of a summary: everything but the body, which lists do not need. */
export const SUMMARY_COLUMNS = [
  "tenant_id",
  "key",
  "version",
  "status",
  "created_at",
  "published_at",
  "created_by",
] as const;

export function summaryFromRow(
  r: Omit<Selectable<DefinitionVersionsTable>, "body">,
): VersionSummary {
  return {
    tenantId: r.tenant_id,
    key: r.key,
    version: Number(r.version),
    status: r.status as VersionStatus,
    createdAt: millis(r.created_at),
    publishedAt: r.published_at === null ? null : millis(r.published_at),
    createdBy: r.created_by,
  };
}

export function versionFromRow(r: Selectable<DefinitionVersionsTable>): DefinitionVersion {
  return { ...summaryFromRow(r), body: r.body };
}
