/**
 * 012: the definition cache's owner heartbeats (docs/definition-cache.md,
 * Orphaned fences and the reaper). One row per process that may open fences
 * (its `host/pid/boot id`, as in cache_mutations.owner_instance), with the
 * last time it beat, in epoch milliseconds by that process's clock, the same
 * unit as cache_mutations.created_at. The reaper completes a fence whose
 * owner stopped beating: the process is gone (kill -9, a lost host).
 *
 * The owner is the primary key: a beat is one upsert of one row, and the
 * reaper's join from a fence to its owner is one lookup. No index on beat_at:
 * the table holds one row per live node plus the recently dead (the reaper
 * removes those), so a scan is a handful of rows.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const OWNER = "varchar(255)"; // as cache_mutations.owner_instance

export function cacheOwners(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("cache_owners")
        .addColumn("owner", OWNER, (c) => c.notNull().primaryKey())
        .addColumn("beat_at", "bigint", (c) => c.notNull())
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
    },
  };
}
