/**
 * Every key's newest published version for a tenant: the rows whose version
 * is the key's highest published one. One statement; used when publishing to
 * check sub-process keys and trigger routes across definitions.
 */
import type { PublishedHead } from "../../../../engine/definitions/definition-version-store.ts";
import type { VersionDb } from "../version-rows.ts";

export async function publishedHeads(db: VersionDb, tenantId: string): Promise<PublishedHead[]> {
  const rows = await db
    .selectFrom("definition_versions as v")
    .select(["v.key", "v.version", "v.body"])
    .where("v.tenant_id", "=", tenantId)
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
    )
    .orderBy("v.key")
    .execute();
  return rows.map((r) => ({ key: r.key, version: Number(r.version), body: r.body }));
}
