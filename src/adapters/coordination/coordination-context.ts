/**
 * What each backend's primitives are built from. One context per backend
 * kind; the factories in memory/, sql/ and redis/ hand it to every primitive.
 */
import type { Kysely } from "kysely";
import type { Redis } from "ioredis";

export interface MemoryContext {
  /** Namespace in front of every key (see the glossary in the coordination port). */
  readonly keyPrefix: string;
}

export interface SqlContext {
  readonly keyPrefix: string;
  // The coordination tables are not in the store's typed schema: they belong to this adapter.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly db: Kysely<any>;
  readonly backend: "sqlite" | "postgres" | "mysql";
  /** For the dedicated connections locks need on PostgreSQL and MariaDB (session-scoped locks). */
  readonly databaseUrl: string;
}

export interface RedisContext {
  readonly keyPrefix: string;
  /** The shared command connection. */
  readonly redis: Redis;
}
