/**
 * The store factory: DATABASE_URL → dialect parts → the one SqlStore.
 * Constructing a store never connects; the first query (normally migrate()) does.
 */
import type { SqliteSynchronous } from "../../config/config.ts";
import type { Store } from "../../engine/ports.ts";
import { backendOf, redactUrl, sqlitePathOf } from "./database-url.ts";
import { mysqlDialect } from "./dialects/mysql/mysql-dialect.ts";
import { postgresDialect } from "./dialects/postgres/postgres-dialect.ts";
import { sqliteDialect } from "./dialects/sqlite/sqlite-dialect.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import { SqlStore } from "./sql-store.ts";

export interface StoreOptions {
  /** Connections per node for PostgreSQL and MariaDB (default 10); SQLite always uses one. */
  poolSize?: number | undefined;
  /** What a SQLite COMMIT waits for (default normal); ignored by the other backends. */
  sqliteSynchronous?: SqliteSynchronous | undefined;
}

/** 10 connections × N nodes stays well under PostgreSQL's default max_connections (100). */
const DEFAULT_POOL_SIZE = 10;

export function dialectFor(databaseUrl: string, options: StoreOptions = {}): StoreDialect {
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

export function createStore(databaseUrl: string, options?: StoreOptions): Store {
  return new SqlStore(dialectFor(databaseUrl, options));
}
