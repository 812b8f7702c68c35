/**
 * The one Store implementation, over Kysely, for every backend. What differs
 * per database lives in dialects/*.ts as capability flags; this file only reads them.
 */
import { Kysely, Migrator } from "kysely";
import type { Store, StoreTx } from "../../engine/ports.ts";
import type { StoreSchema } from "./db-schema.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { migrationProvider } from "./migrations/migration-provider.ts";
import { SqlRunStore } from "./run-store/sql-run-store.ts";
import { SqlReads } from "./sql-reads.ts";
import { SqlStoreTx } from "./sql-store-tx.ts";

export class SqlStore extends SqlReads implements Store {
  readonly dialect: StoreDialectName;

  constructor(parts: StoreDialect) {
    // Kysely opens no connection until the first query: a bad host fails in migrate().
    super(new Kysely<StoreSchema>({ dialect: parts.kysely }), parts);
    this.dialect = parts.name;
  }

  /**
   * Forward-only migrations with Kysely's Migrator, which holds a database-wide
   * lock while it applies them (pg_advisory_lock on PostgreSQL, GET_LOCK on
   * MariaDB, BEGIN IMMEDIATE on SQLite — see dialects/sqlite.ts): when several
   * nodes start at once, one migrates and the others find nothing pending.
   */
  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.parts) });
    const { error } = await migrator.migrateToLatest();
    if (error !== undefined) {
      throw new Error(
        `DATABASE_URL ${this.parts.target}: cannot migrate the database: ${describeError(error)}`,
        { cause: error },
      );
    }
  }

  private runs: SqlRunStore | undefined;

  /** The durable runs' store over the same pool (on SQLite: the same connection). */
  runStore(): SqlRunStore {
    return (this.runs ??= new SqlRunStore(this.db, this.parts));
  }

  /** Rolls back when fn throws and rethrows fn's own error, not a rollback failure. */
  async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const trx = await this.db.startTransaction().execute();
    try {
      const result = await fn(new SqlStoreTx(trx, this.parts));
      await trx.commit().execute();
      return result;
    } catch (error) {
      // After a failed COMMIT the server may already have rolled back; Kysely then
      // makes this a no-op. A rollback failure (dead connection) must not hide `error`.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
  }

  /** No BEGIN/COMMIT: each statement runs on whichever pooled connection is free. */
  autocommit<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return fn(new SqlStoreTx(this.db, this.parts));
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/**
 * pg reports "connect to localhost" failures as an AggregateError (one per
 * resolved address: ::1 and 127.0.0.1) whose own message is empty.
 */
function describeError(error: unknown): string {
  if (error instanceof AggregateError) {
    const inner = error.errors.map(describeError);
    return [...new Set(inner)].join("; ") || "connection failed";
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.message !== "") return error.message;
    return typeof code === "string" ? code : error.name;
  }
  return String(error);
}
