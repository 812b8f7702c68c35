/**
 * Migration 015 on a MariaDB database made before it: its tables had
 * utf8mb4_bin, which is PAD SPACE, so a signal 'go ' was found by 'go'. After
 * the migration no table or column keeps a padding collation and the names
 * compare exactly, the rows kept as they were. The other stores compare
 * exactly already (StoreDialect.exactText null: the migration does nothing).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Kysely, Migrator, sql } from "kysely";
import { dialectFor, openDatabase } from "../../src/adapters/store/open-database.ts";
import { migrationProvider } from "../../src/adapters/store/migrations/migration-provider.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";

const T = "tenant-a";
const NOW = 1_700_000_000_000;
const OLD = "utf8mb4_bin";

for (const b of backends.filter((x) => x.name === "mysql")) {
  void describe(`migration 015 on a padding database: ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    void it("converts every table; 'go ' is no longer 'go'", options, async () => {
      const fresh = await createTestDatabase(b, { empty: true });
      const parts = dialectFor(fresh.url);
      const db = new Kysely<unknown>({ dialect: parts.kysely });
      try {
        const migrator = new Migrator({ db, provider: migrationProvider(parts) });
        assert.equal((await migrator.migrateTo("012_cache_owners")).error, undefined);
        // The tables as the table options before 015 made them.
        const { rows } = await sql<{ name: string }>`select table_name as name
          from information_schema.tables where table_schema = database()
            and table_name not like 'kysely\\_%'`.execute(db);
        assert.ok(rows.length > 10);
        // As 001 made them on MariaDB (the foreign keys, which block a change of collation, too).
        const fks = [
          ["instances", "instances_parent_fk", "parent_instance_id"],
          ["tasks", "tasks_instance_fk", "instance_id"],
        ] as const;
        for (const [table, fk] of fks) {
          await sql`alter table ${sql.id(table)} drop foreign key ${sql.id(fk)}`.execute(db);
        }
        for (const { name } of rows) {
          await sql`alter table ${sql.id(name)} convert to character set utf8mb4
            collate ${sql.raw(OLD)}`.execute(db);
        }
        for (const [table, fk, column] of fks) {
          await sql`alter table ${sql.id(table)} add constraint ${sql.id(fk)}
            foreign key (tenant_id, ${sql.id(column)}) references instances (tenant_id, id)`.execute(
            db,
          );
        }
        await sql`insert into runs (tenant_id, id, workflow, status, input, root_instance_id,
            parent_run_id, created_at, updated_at, wake_at, cancel_requested, generation,
            first_seq) values (${T}, 'r1', 'wf', 'pending', 'null', null, null, ${NOW}, ${NOW},
            ${NOW}, 0, 0, 0)`.execute(db);
        await sql`insert into run_signals (tenant_id, run_id, id, name, payload, at, consumed_seq)
          values (${T}, 'r1', 's1', 'go ', '1', ${NOW}, null)`.execute(db);
        const padded = await sql<{ n: number }>`select count(*) as n from run_signals
          where name = 'go'`.execute(db);
        assert.equal(Number(padded.rows[0]?.n), 1, "before: utf8mb4_bin pads");
      } finally {
        await db.destroy();
      }
      const database = openDatabase(fresh.url);
      const check = new Kysely<unknown>({ dialect: dialectFor(fresh.url).kysely });
      try {
        assert.ok((await database.migrate()).includes("015_exact_text"));
        assert.equal(await database.runs.peekSignal(T, "r1", "go"), undefined);
        assert.equal((await database.runs.peekSignal(T, "r1", "go "))?.payload, 1);
        const left = await sql<{ t: string; c: string; k: string }>`
          select table_name as t, column_name as c, collation_name as k
          from information_schema.columns where table_schema = database()
            and table_name not like 'kysely\\_%' and collation_name is not null
            and collation_name <> 'utf8mb4_nopad_bin'`.execute(check);
        assert.deepEqual(left.rows, [], "every text column is NO PAD");
        const keys = await sql<{ name: string }>`select constraint_name as name
          from information_schema.referential_constraints
          where constraint_schema = database() order by constraint_name`.execute(check);
        assert.deepEqual(
          keys.rows.map((r) => r.name),
          ["instances_parent_fk", "tasks_instance_fk"],
          "the foreign keys are back",
        );
      } finally {
        await check.destroy();
        await database.close();
        await fresh.drop();
      }
    });
  });
}
