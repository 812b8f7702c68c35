/**
 * SQLite (better-sqlite3 v12), the embedded default.
 *
 * Concurrency model: better-sqlite3 is synchronous and Kysely drives it through
 * ONE connection, which one logical transaction at a time holds, so inside one
 * process every transaction runs alone — there are no row locks to take, and
 * `lockInstance`/`lockTask` are plain selects. The driver commits in groups
 * (`group-commit.ts`): many logical transactions and autocommit
 * statements share one physical transaction, and none of them learns its
 * result before that COMMIT succeeded. Across processes (a `taskflow migrate`
 * next to a server, two servers on one file) SQLite's file lock is what
 * serialises writers, and every physical transaction begins with
 * `BEGIN IMMEDIATE`: it takes the write lock up front, so a read-then-write
 * transaction can never fail half-way with SQLITE_BUSY on the lock upgrade
 * (which busy_timeout does not retry); instead the second writer waits up to
 * busy_timeout (5,000 ms) at BEGIN.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { sqliteDriver } from "../../../drivers.ts";
import type { SqliteSynchronous } from "../../../../config/config.ts";
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Dialect,
  type Kysely,
} from "kysely";
import { GroupCommitSqliteDriver } from "./group-commit.ts";
import { lockSqliteFile } from "./process-lock.ts";
import { withStatementCache } from "./statement-cache.ts";
import type { StoreDialect } from "../store-dialect.ts";
import { classifySqliteError } from "./driver-errors.ts";

/** Writers wait this long for another process's write lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;
const MMAP_BYTES = 256 * 1024 * 1024;

/**
 * SQLite DDL is transactional, although Kysely's adapter says otherwise to stay
 * conservative. Saying so makes Kysely's Migrator run all pending migrations in
 * one transaction — a savepoint in a batch our driver begins IMMEDIATE, so two processes
 * migrating one file take turns instead of both applying 001 (Kysely's SQLite
 * migration lock is a no-op because it assumes a single process).
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

function openDatabase(path: string, synchronous: SqliteSynchronous): Database.Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new (sqliteDriver())(path);
  // WAL: readers never block the writer. NORMAL (the default) is durable
  // across application crashes in WAL mode: a COMMIT is a write(2) to the WAL,
  // fsynced at checkpoints, so only an OS crash or power loss can lose the
  // last commits. FULL fsyncs the WAL at every COMMIT and survives those too;
  // group commit (one COMMIT per batch) is what keeps its cost bearable.
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${synchronous === "full" ? "FULL" : "NORMAL"}`);
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma("foreign_keys = ON");
  // Reads through a memory map instead of a pread() per page: the inserts into
  // runs and instances (5-7 indexes each) touch many pages, and this cut the
  // time spent inside SQLite by ~30 % on the durable bench at 32 in flight
  // (2026-11-30). 256 MiB of address space, not of memory; the page cache backs it.
  db.pragma(`mmap_size = ${MMAP_BYTES}`);
  return db;
}

export function sqliteDialect(
  path: string,
  target: string,
  synchronous: SqliteSynchronous = "normal",
): StoreDialect {
  const kysely: Dialect = {
    createDriver: () =>
      new GroupCommitSqliteDriver(() => withStatementCache(openDatabase(path, synchronous))),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new TransactionalDdlSqliteAdapter(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  };
  return {
    name: "sqlite",
    kysely,
    rowLocks: false,
    lateralUnnest: false,
    partialIndexes: true,
    insertIgnore: "on-conflict-do-nothing",
    upsert: "on-conflict",
    sequentialAssignments: false,
    deleteLimit: false,
    castParams: false,
    sessionLocks: null,
    growingId: "integer-autoincrement",
    triggerFunctions: false,
    lateStatistics: false,
    processLock: () => lockSqliteFile(path, target),
    jsonText: "text",
    tableOptions: null,
    exactText: null,
    updateReturning: true,
    writableCte: false,
    lockOfTable: false,
    straightJoin: false,
    skipLocked: false,
    updateFrom: true,
    arrayParams: false,
    listenNotify: false,
    paramStyle: "positional",
    classifyError: classifySqliteError,
    target,
  };
}
