/**
 * The DefinitionVersionStore port over SQL, the same on every backend: each
 * method is one operation of ./sql/.
 */
import type { Kysely } from "kysely";
import type { DefinitionVersion, VersionSummary } from "../../../domain/definition-version.ts";
import type {
  DefinitionVersionStore,
  PublishedHead,
  PublishOutcome,
  PublishVersion,
  RetractOutcome,
  SaveDraft,
  TenantHead,
} from "../../../engine/definitions/definition-version-store-port.ts";
import type { StoreSchema } from "../db-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { getVersion } from "./sql/get-version.ts";
import { latestPublished } from "./sql/latest-published.ts";
import { listVersions } from "./sql/list-versions.ts";
import { publishVersion } from "./sql/publish-version.ts";
import { publishedHeads, triggerHeads } from "./sql/published-heads.ts";
import { retractVersion } from "./sql/retract-version.ts";
import { saveDraft } from "./sql/save-draft.ts";

export class SqlDefinitionStore implements DefinitionVersionStore {
  constructor(
    private readonly db: Kysely<StoreSchema>,
    private readonly parts: StoreDialect,
  ) {}

  saveDraft(cmd: SaveDraft): Promise<void> {
    return saveDraft(this.db, this.parts, cmd);
  }

  publishVersion(cmd: PublishVersion): Promise<PublishOutcome> {
    return publishVersion(this.db, this.parts, cmd);
  }

  retractVersion(c: { tenantId: string; key: string; version: number }): Promise<RetractOutcome> {
    return retractVersion(this.db, this.parts, c);
  }

  getVersion(
    tenantId: string,
    key: string,
    version: number,
  ): Promise<DefinitionVersion | undefined> {
    return getVersion(this.db, tenantId, key, version);
  }

  latestPublished(tenantId: string, key: string): Promise<DefinitionVersion | undefined> {
    return latestPublished(this.db, tenantId, key);
  }

  listVersions(tenantId: string, key: string): Promise<VersionSummary[]> {
    return listVersions(this.db, tenantId, key);
  }

  publishedHeads(tenantId: string): Promise<PublishedHead[]> {
    return publishedHeads(this.db, tenantId);
  }

  triggerHeads(tenantId?: string): Promise<TenantHead[]> {
    return triggerHeads(this.db, tenantId);
  }
}
