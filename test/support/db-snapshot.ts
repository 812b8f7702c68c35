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
 *
 * The cache ledger (cache_mutations) is pruned by the same reaper: completed rows
 * older than the newest of their scope go, at any moment. What a request could
 * change is kept instead: each scope's revision (its newest completed id) and
 * every incomplete fence, which pruning never removes. sqlite_sequence follows.
 */
const BACKGROUND_TABLES = new Set(["cache_owners", "sqlite_sequence"]);
const BACKGROUND_TENANT = "_taskflow";
const LEDGER = "cache_mutations";

interface LedgerRow {
  id: unknown;
  mutation_id: unknown;
  scope: unknown;
  completed: unknown;
}

/** The ledger as requests see it: revision per scope and the open fences. */
function ledgerState(rows: unknown[]): unknown[] {
  const revisions = new Map<string, number>();
  const open: unknown[] = [];
  for (const r of rows as LedgerRow[]) {
    const done = r.completed === true || Number(r.completed) === 1;
    if (!done) open.push({ fence: r.mutation_id, scope: r.scope });
    else {
      const scope = String(r.scope);
      revisions.set(scope, Math.max(revisions.get(scope) ?? 0, Number(r.id)));
    }
  }
  return [...[...revisions].map(([scope, id]) => ({ scope, revision: id })), ...open];
}

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
        (name === LEDGER ? ledgerState(rows) : rows)
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
