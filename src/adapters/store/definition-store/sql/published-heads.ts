/**
 * Every key's newest published version for a tenant: the rows whose version
 * is the key's highest published one. One statement; used when publishing to
 * check sub-process keys and trigger routes across definitions. The same
 * statement over every tenant, narrowed to bodies that declare triggers,
 * loads a node's route table.
 */
import type {
  PublishedHead,
  TenantHead,
} from "../../../../engine/definitions/definition-version-store.ts";
import type { VersionDb } from "../version-rows.ts";

export async function publishedHeads(db: VersionDb, tenantId: string): Promise<PublishedHead[]> {
  const rows = await heads(db).where("v.tenant_id", "=", tenantId).orderBy("v.key").execute();
  return rows.map((r) => ({ key: r.key, version: Number(r.version), body: r.body }));
}

/**
 * Heads of every tenant whose body may declare triggers. The LIKE only
 * narrows (bodies are stored as JSON.stringify writes them, without spaces; a
 * quote inside a string is escaped, so only a key can match): the route table
 * reads the triggers from the parsed body.
 */
export async function triggerHeads(db: VersionDb): Promise<TenantHead[]> {
  const rows = await heads(db)
    .where("v.body", "like", '%"triggers":[{%')
    .orderBy("v.tenant_id")
    .orderBy("v.key")
    .execute();
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    key: r.key,
    version: Number(r.version),
    body: r.body,
  }));
}

function heads(db: VersionDb) {
  return db
    .selectFrom("definition_versions as v")
    .select(["v.tenant_id", "v.key", "v.version", "v.body"])
    .where("v.status", "=", "published")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("definition_versions as n")
            .select("n.version")
            .whereRef("n.tenant_id", "=", "v.tenant_id")
            .whereRef("n.key", "=", "v.key")
            .where("n.status", "=", "published")
            .whereRef("n.version", ">", "v.version"),
        ),
      ),
    );
}
