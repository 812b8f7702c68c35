/**
 * Every row of every table of a test database, as one string: equal
 * snapshots mean no request wrote anything. Rows are sorted in JS so the order
 * a backend returns them in does not matter.
 */
import Database from "better-sqlite3";
import { createConnection } from "mysql2/promise";
import pg from "pg";

/**
 * What a running node writes by itself, whatever requests it gets: its
 * heartbeat (cache_owners, every 2 s) and its singleton jobs' locks (tenant
 * `_taskflow`, e.g. the fence reaper's every 2 s). Left out, so a snapshot
 * tells what requests wrote.
 */
const BACKGROUND_TABLES = new Set(["cache_owners"]);
const BACKGROUND_TENANT = "_taskflow";

const isBackgroundRow = (r: unknown): boolean =>
  typeof r === "object" &&
  r !== null &&
  (r as { tenant_id?: unknown }).tenant_id === BACKGROUND_TENANT;

const stable = (tables: [string, unknown[]][]) =>
  JSON.stringify(
    tables
      .filter(([name]) => !BACKGROUND_TABLES.has(name))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, rows]) => [
        name,
        rows
          .filter((r) => !isBackgroundRow(r))
          .map((r) => JSON.stringify(r))
          .sort(),
      ]),
  );

export async function snapshotDatabase(url: string): Promise<string> {
  if (url.startsWith("sqlite:")) {
    const db = new Database(url.slice("sqlite:".length), { readonly: true });
    try {
      const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
        name: string;
      }[];
      return stable(names.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]));
    } finally {
      db.close();
    }
  }
  if (url.startsWith("postgres")) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'",
      );
      const tables: [string, unknown[]][] = [];
      for (const { t } of rows) tables.push([t, (await client.query(`SELECT * FROM "${t}"`)).rows]);
      return stable(tables);
    } finally {
      await client.end();
    }
  }
  const conn = await createConnection({ uri: url });
  try {
    const [rows] = await conn.query(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = database()",
    );
    const tables: [string, unknown[]][] = [];
    for (const { t } of rows as { t: string }[]) {
      const [data] = await conn.query(`SELECT * FROM \`${t}\``);
      tables.push([t, data as unknown[]]);
    }
    return stable(tables);
  } finally {
    await conn.end();
  }
}
