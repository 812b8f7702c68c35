/**
 * 015: every text column compares exactly where the collation did not
 * (StoreDialect.exactText). MariaDB's utf8mb4_bin is PAD SPACE: trailing
 * spaces are ignored by `=` and by unique keys, so a signal named 'go ' was
 * consumed by waitForSignal('go'), and a definition key, user id or run id
 * with a trailing space matched the one without. Each table of the database
 * (those of earlier migrations, and any other made with the old table
 * options) is converted to the NO PAD collation, its default too, so columns
 * added later inherit it.
 *
 * MariaDB will not change the collation of a column a foreign key uses, even
 * with foreign_key_checks off: the foreign keys are dropped first and made
 * again, as they were, once both sides are converted.
 *
 * Safe on data: under NO PAD, values that were equal stay equal unless they
 * differ in trailing spaces, so no unique key can collide. A conversion
 * rewrites the table (ALTER TABLE … CONVERT): minutes on a large table; the
 * migration runs once, under the migration lock, before the nodes start.
 */
import { sql, type Kysely, type Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

interface ForeignKeyColumn {
  tableName: string;
  name: string;
  column: string;
  refTable: string;
  refColumn: string;
  deleteRule: string;
  updateRule: string;
}

export function exactText(d: StoreDialect): Migration {
  const exact = d.exactText;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (exact === null) return;
      // Kysely's own bookkeeping tables stay as they are: the migrator holds them now.
      const { rows: tables } = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = database() and table_type = 'BASE TABLE'
          and table_name not like 'kysely\\_%'
          and (table_collation is null or table_collation <> ${exact.collation})
        order by table_name`.execute(db);
      if (tables.length === 0) return;
      const { rows: fkColumns } = await sql<ForeignKeyColumn>`
        select k.table_name as tableName, k.constraint_name as name, k.column_name as \`column\`,
          k.referenced_table_name as refTable, k.referenced_column_name as refColumn,
          r.delete_rule as deleteRule, r.update_rule as updateRule
        from information_schema.key_column_usage k
        join information_schema.referential_constraints r
          on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name
          and r.table_name = k.table_name
        where k.table_schema = database() and k.referenced_table_name is not null
        order by k.table_name, k.constraint_name, k.ordinal_position`.execute(db);
      const fks = groupForeignKeys(fkColumns);
      for (const fk of fks) {
        await sql`alter table ${sql.id(fk.tableName)} drop foreign key ${sql.id(fk.name)}`.execute(
          db,
        );
      }
      for (const { name } of tables) {
        await sql`alter table ${sql.id(name)} convert to character set
          ${sql.raw(exact.charset)} collate ${sql.raw(exact.collation)}`.execute(db);
      }
      for (const fk of fks) {
        await sql`alter table ${sql.id(fk.tableName)} add constraint ${sql.id(fk.name)}
          foreign key (${sql.join(fk.columns.map((c) => sql.id(c)))})
          references ${sql.id(fk.refTable)} (${sql.join(fk.refColumns.map((c) => sql.id(c)))})
          on delete ${sql.raw(rule(fk.deleteRule))} on update ${sql.raw(rule(fk.updateRule))}`.execute(
          db,
        );
      }
    },
  };
}

interface ForeignKey {
  tableName: string;
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  deleteRule: string;
  updateRule: string;
}

function groupForeignKeys(rows: readonly ForeignKeyColumn[]): ForeignKey[] {
  const byName = new Map<string, ForeignKey>();
  for (const r of rows) {
    const key = `${r.tableName}\u0000${r.name}`;
    let fk = byName.get(key);
    if (fk === undefined) {
      fk = { ...r, columns: [], refColumns: [] };
      byName.set(key, fk);
    }
    fk.columns.push(r.column);
    fk.refColumns.push(r.refColumn);
  }
  return [...byName.values()];
}

/** A referential action as information_schema spells it, checked before it goes into SQL. */
function rule(r: string): string {
  const known = ["RESTRICT", "CASCADE", "SET NULL", "NO ACTION", "SET DEFAULT"];
  if (!known.includes(r)) throw new Error(`unknown foreign key rule '${r}'`);
  return r;
}
