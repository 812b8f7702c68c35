/**
 * A test database copied from the run's migrated template
 * (test/support/template-databases.ts) is the database the migrations make:
 * the same tables, columns, indexes and foreign keys, the same migrations
 * recorded (so a node migrating it applies none), and its own deployment id.
 * Every db test that does not ask for an empty database stands on this.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { withMysqlAdmin, withPostgres } from "../support/admin-connections.ts";
import { backendTestOptions, backends, createTestDatabase } from "../support/backends.ts";
import {
  createTemplates,
  dropTemplates,
  TEMPLATE_ENV,
  templateRun,
} from "../support/template-databases.ts";

/** Everything migrations make on `url`, apart from rows: one string per object, sorted. */
async function schemaOf(url: string): Promise<string[]> {
  const rows: string[] = [];
  if (url.startsWith("sqlite:")) {
    const db = new Database(url.slice("sqlite:".length), { readonly: true });
    try {
      const all = db.prepare("select type, name, sql from sqlite_master").all();
      for (const r of all as { type: string; name: string; sql: string | null }[]) {
        rows.push(`${r.type} ${r.name}: ${r.sql ?? ""}`);
      }
    } finally {
      db.close();
    }
  } else if (url.startsWith("postgres")) {
    await withPostgres(url, async (c) => {
      const queries = [
        `select table_name, column_name, data_type, is_nullable, column_default
           from information_schema.columns where table_schema = 'public'`,
        "select tablename, indexdef from pg_indexes where schemaname = 'public'",
        `select conrelid::regclass::text, conname, pg_get_constraintdef(oid)
           from pg_constraint where connamespace = 'public'::regnamespace`,
      ];
      for (const q of queries) {
        for (const r of (await c.query(q)).rows) rows.push(Object.values(r).join(" | "));
      }
    });
  } else {
    const name = new URL(url).pathname.slice(1);
    await withMysqlAdmin(async (c) => {
      const [tables] = await c.query(
        "select table_name as t from information_schema.tables where table_schema = ?",
        [name],
      );
      for (const { t } of tables as { t: string }[]) {
        const [[shown]] = (await c.query(`show create table ${name}.\`${t}\``)) as unknown as [
          { "Create Table": string }[],
        ];
        rows.push(String(shown?.["Create Table"]));
      }
    });
  }
  return rows.sort();
}

/** Migrates `url` as a node does at start; the migrations it applied and the deployment id. */
async function migrated(url: string): Promise<{ applied: string[]; id: string }> {
  const db = openDatabase(url);
  try {
    const applied = await db.migrate();
    return { applied, id: db.deploymentId() };
  } finally {
    await db.close();
  }
}

void describe("a copy of the run's template is a freshly migrated database", () => {
  // Its own template, so the test also runs outside the runner and proves what the runner makes.
  const run = randomBytes(4).toString("hex");
  const outer = process.env[TEMPLATE_ENV];
  before(async () => {
    process.env[TEMPLATE_ENV] = [run, ...(await createTemplates(run))].join(" ");
  });
  after(async () => {
    process.env[TEMPLATE_ENV] = outer;
    if (outer === undefined) delete process.env[TEMPLATE_ENV];
    await dropTemplates(run);
  });

  for (const b of backends) {
    void it(`on ${b.name}`, async (t) => {
      const opts = await backendTestOptions(b);
      if (opts.skip !== undefined) return t.skip(opts.skip);
      assert.equal(templateRun(b.name), run, `the ${b.name} template was made`);
      const empty = await createTestDatabase(b, { empty: true });
      const copies = [await createTestDatabase(b), await createTestDatabase(b)];
      try {
        const fresh = await migrated(empty.url);
        assert.ok(fresh.applied.length > 0, "the empty database was migrated here");
        const expected = await schemaOf(empty.url);
        const ids = new Set([fresh.id]);
        for (const copy of copies) {
          assert.deepEqual(await schemaOf(copy.url), expected);
          const opened = await migrated(copy.url);
          assert.deepEqual(opened.applied, [], "every migration is recorded in the copy");
          ids.add(opened.id);
        }
        assert.equal(ids.size, 3, "each database has its own deployment id");
      } finally {
        await empty.drop();
        for (const copy of copies) await copy.drop();
      }
    });
  }
});
