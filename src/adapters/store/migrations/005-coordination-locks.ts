/**
 * 005: fencing tokens of coordination locks (sql/sql-locks.ts).
 *
 * One row per lock ever granted: (tenant, name key) → the last token handed
 * out. Every grant adds one in a single statement, so tokens grow across
 * processes and restarts. The locks themselves are not rows: PostgreSQL and
 * MariaDB hold them as session locks on a dedicated connection, SQLite in the
 * one process that owns the file.
 *
 * name_key is the SHA-256 (hex) of the key prefix and the lock name: names
 * are up to 512 characters of anything, the key is 64 ASCII characters.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)"; // TENANT_PATTERN allows 1–64 characters
const NAME_KEY = "varchar(64)"; // sha256 hex

export function coordinationLocks(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("coordination_lock_tokens")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("name_key", NAME_KEY, (c) => c.notNull())
        .addColumn("token", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("coordination_lock_tokens_pk", ["tenant_id", "name_key"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
