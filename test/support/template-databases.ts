/**
 * One migrated template database per backend per `npm run test:db`: the
 * runner (test/run-tests.ts) migrates one before the first file and drops it
 * after the last; createTestDatabase (backends.ts) then gives every test a
 * copy instead of an empty database it migrates itself.
 *
 * Why: migrating an empty database took 1.3–2 s on PostgreSQL, 4.5–5.5 s on
 * MariaDB and 0.25–0.6 s on SQLite on the loaded 2-core CI machine, and a db
 * run creates hundreds of databases. A copy costs 0.6 s (PostgreSQL `CREATE
 * DATABASE … TEMPLATE`), about 1.2 s (MariaDB: the template's own `SHOW
 * CREATE TABLE`s, foreign keys included, and its rows) and milliseconds
 * (SQLite: a file copy). The code under test still migrates each database at
 * start; it finds the latest schema and nothing pending, as on any restart.
 *
 * A copy is the template's schema and rows exactly, except the deployment's
 * identity (migration 013): every copy gets a fresh random id, as every
 * freshly migrated database does, so two test databases never share a key
 * space on Redis.
 *
 * The run is named by TEMPLATE_ENV in the environment the runner hands every
 * test process; a file run on its own (`node --test file`) has none and gets
 * empty databases, as before.
 */
import { copyFile, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import type { RowDataPacket } from "mysql2/promise";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { newDeploymentId } from "../../src/domain/deployment-id.ts";
import {
  MYSQL_ADMIN_URL,
  POSTGRES_ADMIN_URL,
  withDatabase,
  withMysqlAdmin,
  withPostgres,
  withPostgresAdmin,
} from "./admin-connections.ts";

/**
 * `<run> <backend>…`, e.g. `3fa9c1d2 sqlite postgres mysql`: the run's name and
 * the backends it has a template on (a server down at the start has none, and
 * its tests fail or skip as they would have).
 */
export const TEMPLATE_ENV = "TF_TEST_TEMPLATES";

type BackendName = "sqlite" | "postgres" | "mysql";

/** The run whose template `backend` copies, or undefined: an empty database then. */
export function templateRun(backend: BackendName): string | undefined {
  const [run, ...names] = (process.env[TEMPLATE_ENV] ?? "").split(" ");
  return run !== undefined && /^[0-9a-f]{1,16}$/.test(run) && names.includes(backend)
    ? run
    : undefined;
}

/** The template database's name on PostgreSQL and MariaDB. */
export const templateName = (run: string): string => `tf_template_${run}`;

/** The template file on SQLite. */
export const sqliteTemplatePath = (run: string): string =>
  join(tmpdir(), `taskflow-template-${run}`, "template.db");

/** Migrates `url` (a database just created) to the latest schema, as a node does at start. */
async function migrateTemplate(url: string): Promise<void> {
  const database = openDatabase(url);
  try {
    await database.migrate();
  } finally {
    await database.close();
  }
}

/** Migration 013's one row, made anew: the one thing a copy must not share with its template. */
const FRESH_IDENTITY = "update deployment_identity set id = ?, created_at = ?";

/**
 * Makes the run's template on each backend, side by side; resolves with the
 * backends that have one. One that fails is reported and left out.
 */
export async function createTemplates(run: string): Promise<BackendName[]> {
  const made = await Promise.all(
    (["sqlite", "postgres", "mysql"] as const).map(async (b) => {
      try {
        await create[b](run);
        return b;
      } catch (e) {
        console.log(`# run-tests: no ${b} template, its tests migrate their own: ${String(e)}`);
        await drop[b](run).catch(() => undefined);
        return undefined;
      }
    }),
  );
  return made.filter((b) => b !== undefined);
}

export async function dropTemplates(run: string): Promise<void> {
  await Promise.all(Object.values(drop).map((d) => d(run).catch(() => undefined)));
}

const create: Record<BackendName, (run: string) => Promise<void>> = {
  async sqlite(run) {
    const path = sqliteTemplatePath(run);
    await mkdir(dirname(path), { recursive: true });
    await migrateTemplate(`sqlite:${path}`);
  },
  async postgres(run) {
    await withPostgresAdmin((c) => c.query(`create database ${templateName(run)}`));
    await migrateTemplate(withDatabase(POSTGRES_ADMIN_URL, templateName(run)));
  },
  async mysql(run) {
    await withMysqlAdmin((c) => c.query(`create database ${templateName(run)}`));
    await migrateTemplate(withDatabase(MYSQL_ADMIN_URL, templateName(run)));
  },
};

const drop: Record<BackendName, (run: string) => Promise<void>> = {
  sqlite: (run) => rm(dirname(sqliteTemplatePath(run)), { recursive: true, force: true }),
  async postgres(run) {
    await withPostgresAdmin((c) =>
      c.query(`drop database if exists ${templateName(run)} with (force)`),
    );
  },
  async mysql(run) {
    await withMysqlAdmin((c) => c.query(`drop database if exists ${templateName(run)}`));
  },
};

/** `path`: a copy of the run's SQLite template with its own deployment id. */
export async function copySqliteTemplate(run: string, path: string): Promise<void> {
  await copyFile(sqliteTemplatePath(run), path);
  const db = new Database(path);
  try {
    db.prepare(FRESH_IDENTITY).run(newDeploymentId(), Date.now());
  } finally {
    db.close();
  }
}

/**
 * Database `name`, a copy of the run's PostgreSQL template. The template has
 * no connection once made (CREATE DATABASE … TEMPLATE requires that); copies
 * made at once share it fine.
 */
export async function copyPostgresTemplate(run: string, name: string): Promise<void> {
  await withPostgresAdmin((c) => c.query(`create database ${name} template ${templateName(run)}`));
  await withPostgres(withDatabase(POSTGRES_ADMIN_URL, name), (c) =>
    c.query(FRESH_IDENTITY.replace("?", "$1").replace("?", "$2"), [newDeploymentId(), Date.now()]),
  );
}

/**
 * Database `name`, a copy of the run's MariaDB template (which has no
 * TEMPLATE clause): the template's own CREATE TABLEs and CREATE TRIGGERs in one round trip, with
 * foreign key checks off so their order does not matter (`CREATE TABLE … LIKE`
 * would drop the foreign keys), then the rows of its non-empty tables.
 */
export async function copyMysqlTemplate(run: string, name: string): Promise<void> {
  const { creates, triggers, filled } = await mysqlTemplate(run);
  const tpl = templateName(run);
  const script = [
    `create database ${name}`,
    `use ${name}`,
    "set foreign_key_checks = 0",
    ...creates,
    ...triggers,
    ...filled.map((t) => `insert into \`${t}\` select * from ${tpl}.\`${t}\``),
    FRESH_IDENTITY,
    "set foreign_key_checks = 1",
  ].join(";\n");
  await withMysqlAdmin((c) => c.query(script, [newDeploymentId(), Date.now()]));
}

interface MysqlTemplate {
  /** SHOW CREATE TABLE of every table, unqualified (they run in the copy). */
  creates: string[];
  /**
   * SHOW CREATE TRIGGER of every trigger (the tasks' audit trail, migration 019):
   * a table's CREATE does not carry its triggers, and a copy without them would
   * write no trail at all.
   */
  triggers: string[];
  /** The tables that hold rows (the migrations' bookkeeping, the identity). */
  filled: string[];
}

/** Read once per test process: the template never changes during a run. */
let mysqlTemplates: { run: string; template: Promise<MysqlTemplate> } | undefined;

function mysqlTemplate(run: string): Promise<MysqlTemplate> {
  if (mysqlTemplates?.run !== run) {
    mysqlTemplates = { run, template: readMysqlTemplate(templateName(run)) };
  }
  return mysqlTemplates.template;
}

const readMysqlTemplate = (tpl: string): Promise<MysqlTemplate> =>
  withMysqlAdmin(async (c) => {
    const [tables] = await c.query<RowDataPacket[]>(
      "select table_name as t from information_schema.tables where table_schema = ? order by 1",
      [tpl],
    );
    const template: MysqlTemplate = { creates: [], triggers: [], filled: [] };
    const [triggers] = await c.query<RowDataPacket[]>(
      "select trigger_name as t from information_schema.triggers where trigger_schema = ? order by 1",
      [tpl],
    );
    for (const { t } of triggers as { t: string }[]) {
      const [[shown]] = await c.query<RowDataPacket[]>(`show create trigger ${tpl}.\`${t}\``);
      template.triggers.push(String(shown?.["SQL Original Statement"]));
    }
    for (const { t } of tables as { t: string }[]) {
      const [[shown]] = await c.query<RowDataPacket[]>(`show create table ${tpl}.\`${t}\``);
      template.creates.push(String(shown?.["Create Table"]));
      const [[row]] = await c.query<RowDataPacket[]>(
        `select exists (select 1 from ${tpl}.\`${t}\`) as filled`,
      );
      if (Number(row?.["filled"]) === 1) template.filled.push(t);
    }
    return template;
  });
