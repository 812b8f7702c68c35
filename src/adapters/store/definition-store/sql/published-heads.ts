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
} from "../../../../engine/definitions/definition-version-store-port.ts";
import type { VersionDb } from "../version-rows.ts";

export async function publishedHeads(db: VersionDb, tenantId: string): Promise<PublishedHead[]> {
  const rows = await heads(db, tenantId).orderBy("v.key").execute();
  return rows.map((r) => ({ key: r.key, version: Number(r.version), body: r.body }));
}

/**
 * Heads of every tenant (or of one) whose body may declare triggers. The LIKE only
 * narrows (bodies are stored as JSON.stringify writes them, without spaces; a
 * quote inside a string is escaped, so only a key can match): the route table
 * reads the triggers from the parsed body.
 */
export async function triggerHeads(db: VersionDb, tenantId?: string): Promise<TenantHead[]> {
  const rows = await heads(db, tenantId)
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

/**
 * Each key's highest published version, joined back to its row by the
 * primary key. Not a `NOT EXISTS (a newer published version)` per row: that
 * checks every published version against every newer one of its key. With
 * 3 keys of 1,000 versions each it took 271 ms on MariaDB and 653 ms on
 * PostgreSQL per call, against 3.7 ms and 2.1 ms for this grouped maximum,
 * which reads each published row once — and a publish reads the heads
 * twice.
 */
function heads(db: VersionDb, tenantId?: string) {
  let newest = db
    .selectFrom("definition_versions")
    .select(["tenant_id", "key"])
    .select((eb) => eb.fn.max("version").as("head"))
    .where("status", "=", "published");
  if (tenantId !== undefined) newest = newest.where("tenant_id", "=", tenantId);
  return db
    .selectFrom("definition_versions as v")
    .innerJoin(newest.groupBy(["tenant_id", "key"]).as("h"), (join) =>
      join
        .onRef("h.tenant_id", "=", "v.tenant_id")
        .onRef("h.key", "=", "v.key")
        .onRef("h.head", "=", "v.version"),
    )
    .select(["v.tenant_id", "v.key", "v.version", "v.body"]);
}
