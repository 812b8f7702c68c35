/**
 * The key's draft (version 0) inserted or overwritten in one statement; the
 * primary key makes it one row per key whoever saves at once.
 */
import { DRAFT_VERSION } from "../../../../domain/definition-version.ts";
import type { SaveDraft } from "../../../../engine/definitions/definition-version-store-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { VersionDb } from "../version-rows.ts";

export async function saveDraft(db: VersionDb, parts: StoreDialect, cmd: SaveDraft): Promise<void> {
  const insert = db.insertInto("definition_versions").values({
    tenant_id: cmd.tenantId,
    key: cmd.key,
    version: DRAFT_VERSION,
    status: "draft",
    body: cmd.body,
    created_at: cmd.at,
    published_at: null,
    created_by: cmd.createdBy,
  });
  const changes = { body: cmd.body, created_at: cmd.at, created_by: cmd.createdBy };
  if (parts.insertIgnore === "on-conflict-do-nothing") {
    await insert
      .onConflict((oc) => oc.columns(["tenant_id", "key", "version"]).doUpdateSet(changes))
      .execute();
  } else {
    await insert.onDuplicateKeyUpdate(changes).execute();
  }
}
