/**
 * 006: coordination counters (rate limits) and the TTL key-value cache.
 *
 * Both tables are keyed by (tenant_id, key_hash): key_hash is the SHA-256
 * (64 hex characters) of the key prefix, the limiter's name and window, and the
 * caller's key. Keys may be 512 characters and the prefix is configuration, so
 * the plain text could pass MariaDB's 3,072-byte index limit (utf8mb4 counts 4
 * bytes a character); the hash is 64 ASCII bytes on every backend.
 *
 * expires_at (ms since the epoch) is when a row stops mattering: readers treat
 * a row at or past it as absent, and the bounded cleanup deletes such rows
 * through the expires_at index.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)";
const HASH = "char(64)";

export function coordinationCountersCache(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  const json = sql.raw(d.jsonText);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One row per counter: the current fixed window and the one before it
      // (which the sliding estimate weighs). `taken` is what the last consume
      // took (0 when refused), read back in the same statement.
      await db.schema
        .createTable("coord_rate_counters")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("key_hash", HASH, (c) => c.notNull())
        .addColumn("window_start", "bigint", (c) => c.notNull())
        .addColumn("points", "bigint", (c) => c.notNull())
        .addColumn("prev_points", "bigint", (c) => c.notNull())
        .addColumn("taken", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("coord_rate_counters_pk", ["tenant_id", "key_hash"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createTable("coord_cache")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("key_hash", HASH, (c) => c.notNull())
        .addColumn("value", json, (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("coord_cache_pk", ["tenant_id", "key_hash"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      await db.schema
        .createIndex("coord_rate_counters_expiry_ix")
        .on("coord_rate_counters")
        .column("expires_at")
        .execute();
      await db.schema
        .createIndex("coord_cache_expiry_ix")
        .on("coord_cache")
        .column("expires_at")
        .execute();
    },
  };
}
