/**
 * DATABASE_URL → its dialect: the one place that turns a backend's name into
 * the parts and capability flags everything above the dialects works with.
 */
import type { SqliteSynchronous } from "../../../config/config.ts";
import { backendOf, redactUrl, sqlitePathOf } from "../database-url.ts";
import { mysqlDialect } from "./mysql/mysql-dialect.ts";
import { postgresDialect } from "./postgres/postgres-dialect.ts";
import { sqliteDialect } from "./sqlite/sqlite-dialect.ts";
import type { StoreDialect } from "./store-dialect.ts";

export interface DialectOptions {
  /** Connections per node for PostgreSQL and MariaDB (default 10); SQLite always uses one. */
  poolSize?: number | undefined;
  /** What a SQLite COMMIT waits for (default normal); ignored by the other backends. */
  sqliteSynchronous?: SqliteSynchronous | undefined;
}

/** 10 connections × N nodes stays well under PostgreSQL's default max_connections (100). */
const DEFAULT_POOL_SIZE = 10;

export function dialectFor(databaseUrl: string, options: DialectOptions = {}): StoreDialect {
  const url = databaseUrl.trim();
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  const target = redactUrl(url === "" ? "sqlite:" + sqlitePathOf(url) : url);
  switch (backendOf(url)) {
    case "sqlite":
      return sqliteDialect(sqlitePathOf(url), target, options.sqliteSynchronous);
    case "postgres":
      return postgresDialect(url, poolSize, target);
    case "mysql":
      return mysqlDialect(url, poolSize, target);
  }
}

/**
 * The file an embedded database lives in (SQLite: a path, or `:memory:`);
 * null when the URL names a server. Throws as backendOf does on a scheme no
 * dialect serves.
 */
export function databaseFileOf(databaseUrl: string): string | null {
  return backendOf(databaseUrl) === "sqlite" ? sqlitePathOf(databaseUrl) : null;
}
