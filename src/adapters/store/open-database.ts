/**
 * One database, its stores: DATABASE_URL → one Kysely instance (one pool; on
 * SQLite one connection) → the human-task store, the run store and, on
 * PostgreSQL, the LISTEN wake-ups. The stores share the connection and know
 * nothing of each other: this file is the only place that builds both.
 *
 * What differs per backend as a whole is decided here, once, from the
 * dialect's capability flags (dialects/store-dialect.ts): which strategy the
 * human-task store uses (task-store/pg-task-store.ts: one statement per
 * command on PostgreSQL; task-store/sql-task-store.ts: a locked transaction
 * elsewhere), whether wake-ups exist, the PostgreSQL-only maintenance after
 * migrating (pg-stats-keeper.ts) and SQLite's process lock.
 *
 * Opening never connects; the first query (normally migrate()) does. On
 * SQLite, opening takes the process lock of the file (one process per SQLite
 * file: dialects/sqlite/process-lock.ts), so a second process fails here, at
 * its start; close() gives it back.
 */
import { Kysely, Migrator, sql, type LogEvent } from "kysely";
import { isUnavailable } from "../../domain/unavailable.ts";
import type { CacheLedger } from "../../engine/definition-cache/cache-ledger-port.ts";
import type { DefinitionVersionStore } from "../../engine/definitions/definition-version-store-port.ts";
import type { RunStore } from "../../engine/durable/run-store-port.ts";
import type { Wakeups } from "../../engine/durable/wakeups-port.ts";
import type { SqlContext } from "../coordination/coordination-context.ts";
import type { CoordinationSchema } from "../coordination/sql/coordination-schema.ts";
import { SqlCacheLedger } from "./cache-ledger/sql-cache-ledger.ts";
import { backendOf } from "./database-url.ts";
import { readDeploymentId } from "./deployment-identity.ts";
import { SqlDefinitionStore } from "./definition-store/sql-definition-store.ts";
import type { StoreSchema } from "./db-schema.ts";
import { dialectFor, type DialectOptions } from "./dialects/dialect-for.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { withUnavailableErrors } from "./dialects/unavailable-dialect.ts";
import { migrationProvider } from "./migrations/migration-provider.ts";
import { startStatsKeeper, type StatsKeeper } from "./pg-stats-keeper.ts";
import { pgWakeups } from "./run-store/pg-wakeups.ts";
import { SqlRunStore } from "./run-store/sql-run-store.ts";
import { PgTaskStore } from "./task-store/pg-task-store.ts";
import { SqlTaskStore } from "./task-store/sql-task-store.ts";

// Where it always was, for the callers that import it from here.
export { dialectFor };

export interface StoreOptions extends DialectOptions {
  /**
   * Called with each statement's text as the stores send it, succeeded or
   * failed (Kysely's log; transaction control — BEGIN, COMMIT — is not a
   * statement of Kysely's and is not reported). For benchmarks and tests that
   * count round trips per operation; unset, Kysely neither times nor reports.
   */
  onQuery?: ((sql: string) => void) | undefined;
}

/** What a database does as a whole, apart from its stores. */
export interface DatabaseLifecycle {
  /**
   * Applies pending migrations; safe when several nodes call it at once. Then
   * reads the deployment's identity (Database.deploymentId). Resolves with
   * the names of the migrations this call applied (none: up to date).
   */
  migrate(): Promise<string[]>;
  /**
   * One cheap round trip to the database (readiness). Rejects — with the
   * domain's UnavailableError when the database cannot be reached — instead of
   * resolving when it does not answer.
   */
  ping(): Promise<void>;
  /** Closes the pool (or the SQLite connection) every store of it uses. */
  close(): Promise<void>;
}

export interface Database extends DatabaseLifecycle {
  readonly backend: StoreDialectName;
  /** The human-task store. */
  readonly tasks: SqlTaskStore;
  /** The durable runs' store, over the same connection. */
  readonly runs: RunStore;
  /** Versions of process definitions (drafts, published, retracted), over the same connection. */
  readonly definitions: DefinitionVersionStore;
  /** The definition cache's consistency ledger (fences and revisions), over the same connection. */
  readonly cacheLedger: CacheLedger;
  /** LISTEN/NOTIFY wake-ups on PostgreSQL; undefined elsewhere (workers poll). */
  readonly wakeups: Wakeups | undefined;
  /** What SQL coordination (locks, counters, …) builds on: this database's connection. */
  readonly coordinationContext: Omit<SqlContext, "keyPrefix">;
  /**
   * The deployment's identity (migration 013, src/domain/deployment-id.ts),
   * read by migrate() or identify(); throws before. A function, not a value:
   * the parts that build shared keys are made before the migration, and ask
   * at their first key.
   */
  deploymentId(): string;
  /** Reads the deployment's identity without migrating (a handle on a database migrated by another). */
  identify(): Promise<string>;
}

export function openDatabase(databaseUrl: string, options: StoreOptions = {}): Database {
  const backend = backendOf(databaseUrl.trim());
  const parts = dialectFor(databaseUrl, options);
  const lock = parts.processLock?.();
  // Kysely opens no connection until the first query: a bad host fails in migrate().
  const onQuery = options.onQuery;
  const db = new Kysely<StoreSchema>({
    dialect: withUnavailableErrors(parts.kysely, parts.classifyError),
    ...(onQuery === undefined ? {} : { log: (event: LogEvent) => onQuery(event.query.sql) }),
  });
  // Young tables need statistics sooner than autovacuum gives them (PostgreSQL only).
  const afterMigrate = parts.lateStatistics ? startStatsKeeper : undefined;
  let maintenance: StatsKeeper | undefined;
  let identity: string | undefined;
  return {
    backend,
    // PgTaskStore's one-statement commands are writable CTEs over unnest'd array parameters.
    tasks:
      parts.writableCte && parts.arrayParams
        ? new PgTaskStore(db, parts)
        : new SqlTaskStore(db, parts),
    runs: new SqlRunStore(db, parts),
    definitions: new SqlDefinitionStore(db, parts),
    cacheLedger: new SqlCacheLedger(db, parts),
    wakeups: parts.listenNotify ? pgWakeups(databaseUrl) : undefined,
    coordinationContext: {
      db: db.withTables<{ [T in keyof CoordinationSchema]: CoordinationSchema[T] }>(),
      dialect: parts,
      databaseUrl: databaseUrl.trim(),
    },
    deploymentId() {
      if (identity === undefined) {
        throw new Error(
          "the deployment id is read by migrate() or identify(); neither has run on this handle",
        );
      }
      return identity;
    },
    async identify() {
      identity ??= await readDeploymentId(db, parts.target);
      return identity;
    },
    async migrate() {
      const applied = await migrate(db, parts);
      identity ??= await readDeploymentId(db, parts.target);
      if (afterMigrate !== undefined && maintenance === undefined) {
        maintenance = afterMigrate(db as Kysely<unknown>);
      }
      return applied;
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      maintenance?.stop();
      try {
        await db.destroy();
      } finally {
        lock?.release();
      }
    },
  };
}

/**
 * Forward-only migrations with Kysely's Migrator, which holds a database-wide
 * lock while it applies them (pg_advisory_lock on PostgreSQL, GET_LOCK on
 * MariaDB, BEGIN IMMEDIATE on SQLite — see dialects/sqlite/sqlite-dialect.ts): when several
 * nodes start at once, one migrates and the others find nothing pending.
 */
async function migrate(db: Kysely<StoreSchema>, parts: StoreDialect): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider(parts) });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    throw new Error(
      `DATABASE_URL ${parts.target}: cannot migrate the database: ${describeError(error)}`,
      { cause: error },
    );
  }
  return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
}

/**
 * pg reports "connect to localhost" failures as an AggregateError (one per
 * resolved address: ::1 and 127.0.0.1) whose own message is empty.
 */
function describeError(error: unknown): string {
  // The driver's own error says what failed (e.g. ECONNREFUSED); ours only that it is retryable.
  if (isUnavailable(error) && error.cause !== undefined) return describeError(error.cause);
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
