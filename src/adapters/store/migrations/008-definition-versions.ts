/**
 * 008: definition versions (docs/definitions.md, Versions). One row per
 * version of a definition key, the draft included as version 0 — so the
 * primary key (tenant_id, key, version) is also what makes "one draft per
 * key" and "a number is given once" hold whatever the code does. Bodies are
 * the definition as JSON text; `definitions` keeps its plain (key, name) row.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_ID_LENGTH } from "../../../domain/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)";
const EXTERNAL_ID = `varchar(${MAX_ID_LENGTH})`;
const ENUM = "varchar(16)";

export function definitionVersions(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  const json = sql.raw(d.jsonText);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("definition_versions")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("key", EXTERNAL_ID, (c) => c.notNull())
        .addColumn("version", "integer", (c) => c.notNull())
        .addColumn("status", ENUM, (c) => c.notNull())
        .addColumn("body", json, (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("published_at", "bigint")
        .addColumn("created_by", EXTERNAL_ID, (c) => c.notNull())
        .addPrimaryKeyConstraint("definition_versions_pk", ["tenant_id", "key", "version"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
