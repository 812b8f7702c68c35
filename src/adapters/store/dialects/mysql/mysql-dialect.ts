/**
 * MariaDB / MySQL (mysql2).
 *
 * InnoDB defaults to REPEATABLE READ: a transaction keeps reading the snapshot
 * taken at its first plain SELECT. The engine's pattern is "lock the root, then
 * read the tasks": after waiting for the lock, REPEATABLE READ would still show
 * the tasks as they were before the winner committed, and the loser would act
 * on stale state. READ COMMITTED gives every statement a fresh snapshot — the
 * same semantics as PostgreSQL — so we set it on every pooled connection.
 */
import { mysqlDriver } from "../../../drivers.ts";
import { CompiledQuery, MysqlDialect } from "kysely";
import { guardConnectionErrors } from "./connection-errors.ts";
import type { StoreDialect } from "../store-dialect.ts";
import { classifyMysqlError } from "./driver-errors.ts";
import { PerDatabaseMigrationLockAdapter } from "./migration-lock.ts";

/** mysql2's own default, spelled out: a blackholed host fails after 10 s. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Kysely's MysqlDialect with a migration lock per database instead of one per server. */
class TaskflowMysqlDialect extends MysqlDialect {
  override createAdapter(): PerDatabaseMigrationLockAdapter {
    return new PerDatabaseMigrationLockAdapter();
  }
}

/** Binary and NO PAD (MariaDB 10.2+): every name and key compares exactly. */
const EXACT_TEXT = { charset: "utf8mb4", collation: "utf8mb4_nopad_bin" } as const;

export function mysqlDialect(url: string, poolSize: number, target: string): StoreDialect {
  // mysql2 parses only the mysql:// scheme; mariadb:// is the same protocol.
  const uri = url.replace(/^mariadb:/i, "mysql:");
  const kysely = new TaskflowMysqlDialect({
    pool: () =>
      Promise.resolve(
        guardConnectionErrors(
          mysqlDriver().createPool({
            uri,
            connectionLimit: poolSize,
            connectTimeout: CONNECT_TIMEOUT_MS,
            charset: "utf8mb4",
          }),
        ),
      ),
    // Kysely awaits this once per new physical connection, before its first query.
    onCreateConnection: async (conn) => {
      await conn.executeQuery(
        CompiledQuery.raw("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
      );
    },
  });
  return {
    name: "mysql",
    kysely,
    rowLocks: true,
    lateralUnnest: false,
    updateReturning: false,
    writableCte: false,
    lockOfTable: false,
    straightJoin: true,
    partialIndexes: false,
    insertIgnore: "on-duplicate-key-noop",
    upsert: "on-duplicate-key",
    sequentialAssignments: true,
    deleteLimit: true,
    castParams: false,
    sessionLocks: "get-lock",
    growingId: "bigint-auto-increment",
    triggerFunctions: false,
    lateStatistics: false,
    processLock: null,
    jsonText: "mediumtext",
    // A binary collation: ids compare byte-for-byte like on PostgreSQL and SQLite;
    // the server default (…_general_ci) would make user 'Alice' see 'alice''s
    // inbox. NO PAD: utf8mb4_bin pads, so a signal 'go ' would be 'go' (015).
    tableOptions: `ENGINE=InnoDB DEFAULT CHARSET=${EXACT_TEXT.charset} COLLATE=${EXACT_TEXT.collation}`,
    exactText: EXACT_TEXT,
    skipLocked: true,
    updateFrom: false,
    arrayParams: false,
    listenNotify: false,
    paramStyle: "positional",
    classifyError: classifyMysqlError,
    target,
  };
}
