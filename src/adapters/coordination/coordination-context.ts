/**
 * What each backend's primitives are built from. One context per backend
 * kind; the factories in memory/, sql/ and redis/ hand it to every primitive.
 */
import type { Kysely } from "kysely";
import type { Redis } from "ioredis";
import type { StoreDialect } from "../store/dialects/store-dialect.ts";
import type { CoordinationSchema } from "./sql/coordination-schema.ts";

/** What of the store's dialect the SQL coordination reads. */
export type SqlDialect = Pick<
  StoreDialect,
  | "name"
  | "upsert"
  | "sequentialAssignments"
  | "deleteLimit"
  | "castParams"
  | "sessionLocks"
  | "paramStyle"
  | "listenNotify"
>;

export interface MemoryContext {
  /** Namespace in front of every key (see the glossary in the coordination port). */
  readonly keyPrefix: string;
}

export interface SqlContext {
  readonly keyPrefix: string;
  /** The store's connection, typed by the coordination tables (they belong to this adapter). */
  readonly db: Kysely<CoordinationSchema>;
  /**
   * The store's dialect: the SQL branches on its capability flags, as the
   * store does, never on its name (which only names the backend).
   */
  readonly dialect: SqlDialect;
  /** For the dedicated connections locks need on PostgreSQL and MariaDB (session-scoped locks). */
  readonly databaseUrl: string;
}

export interface RedisContext {
  readonly keyPrefix: string;
  /** The shared command connection. */
  readonly redis: Redis;
}
