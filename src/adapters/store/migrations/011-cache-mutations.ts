/**
 * 011: the definition cache's consistency ledger (docs/definition-cache.md,
 * Consistency ledger). One row per fence a writer opens before it changes
 * what a cache holds, plus one completed row per completion; a scope's cache
 * revision is the highest completed id of the scope.
 *
 * The id must only grow, even across deletes, or a pruned table could hand
 * out an id a node has already seen as a revision: SQLite needs AUTOINCREMENT
 * for that (a plain rowid reuses max + 1), PostgreSQL's sequence and
 * MariaDB's AUTO_INCREMENT never go back (StoreDialect.growingId).
 * `completed` is 0/1 in a smallint so the same parameter binds on every
 * driver (better-sqlite3 has no booleans).
 *
 * One index (scope, completed, id) answers both questions a reader asks on
 * every cached read: the newest completed id of a scope (its last entry) and
 * whether any incomplete row of the scope exists (its first entry, if any).
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { withGrowingId } from "./growing-id.ts";

const SCOPE = "varchar(16)";
const MUTATION_ID = "varchar(64)";
const OWNER = "varchar(255)";

export function cacheMutations(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("cache_mutations")
        .$call((b) => withGrowingId(d, b))
        .addColumn("mutation_id", MUTATION_ID, (c) => c.notNull().unique())
        .addColumn("scope", SCOPE, (c) => c.notNull())
        .addColumn("owner_instance", OWNER, (c) => c.notNull())
        .addColumn("completed", "smallint", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();
      await db.schema
        .createIndex("cache_mutations_scope_completed_id")
        .on("cache_mutations")
        .columns(["scope", "completed", "id"])
        .execute();
    },
  };
}
