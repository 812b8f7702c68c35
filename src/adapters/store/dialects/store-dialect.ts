/**
 * A store dialect: the small set of parts that differ between backends, in the
 * style of Kysely's own `src/dialect/` (a dialect is a factory of parts). The
 * stores (task-store/, run-store/, sql-reads.ts), the migrations and the SQL
 * coordination (adapters/coordination/sql/) are written once against this
 * interface and branch on its capability flags only where the databases'
 * semantics differ; no code above the dialect tests a backend's name
 * (test/unit/store/dialect-names.test.ts holds that).
 */
import type { Dialect } from "kysely";
import type { ClassifyDriverError } from "./driver-error.ts";
import type { ProcessLock } from "./sqlite/process-lock.ts";

export type StoreDialectName = "sqlite" | "postgres" | "mysql";

/**
 * How a raw SQL text writes its parameters: `$1, $2, …` (PostgreSQL) or `?`
 * (SQLite, MariaDB).
 */
export type ParamStyle = "numbered" | "positional";

export interface StoreDialect {
  readonly name: StoreDialectName;
  /** Kysely's driver, query compiler, adapter and introspector. Connects lazily. */
  readonly kysely: Dialect;
  /**
   * True when `SELECT … FOR UPDATE` exists and matters (PostgreSQL, MariaDB).
   * SQLite has no row locks: its write transactions are serialised instead.
   */
  readonly rowLocks: boolean;
  /**
   * `unnest(array) CROSS JOIN LATERAL (…)` exists (PostgreSQL). The inbox then
   * plans one parameterised branch instead of one per group: with 21 UNION ALL
   * branches PostgreSQL spent ~5 ms planning a query that runs in 0.8 ms.
   */
  readonly lateralUnnest: boolean;
  /**
   * `UPDATE … RETURNING` exists (PostgreSQL; SQLite ≥ 3.35), so a conditional
   * write can hand back the row it changed instead of a SELECT before or after
   * it. MariaDB has none.
   */
  readonly updateReturning: boolean;
  /**
   * Data-modifying statements inside `WITH` (PostgreSQL): an UPDATE and a read
   * after it, or two INSERTs, become one statement.
   */
  readonly writableCte: boolean;
  /**
   * `SELECT … FOR UPDATE OF t` locks only the rows of `t` in a join
   * (PostgreSQL). MariaDB has no `OF` and would lock every joined row. Absent
   * means false.
   */
  readonly lockOfTable: boolean;
  /**
   * `SELECT STRAIGHT_JOIN` (MariaDB/MySQL) joins in FROM order, so a locking join
   * locks its rows table by table in that order.
   */
  readonly straightJoin: boolean;
  /**
   * `SELECT … FOR UPDATE SKIP LOCKED` exists (PostgreSQL, MariaDB ≥ 10.6): a
   * claim or a heartbeat passes over rows another statement holds instead of
   * waiting for them.
   */
  readonly skipLocked: boolean;
  /**
   * `UPDATE t SET … FROM s WHERE …` joins another row source into an UPDATE
   * (PostgreSQL; SQLite ≥ 3.33). MariaDB spells it `UPDATE t JOIN s`, which
   * the store does not use.
   */
  readonly updateFrom: boolean;
  /**
   * A JavaScript array binds as one SQL array parameter that `unnest(…)` turns
   * into rows (PostgreSQL): one statement of fixed text writes any number of
   * rows, which is what batching writes across runs needs (write-batcher.ts).
   */
  readonly arrayParams: boolean;
  /**
   * `LISTEN` / `NOTIFY` (PostgreSQL): a write that makes a run runnable
   * notifies idle workers, which then claim at once instead of at their next
   * poll. Elsewhere workers poll only.
   */
  readonly listenNotify: boolean;
  /**
   * How raw statements write parameters (see ParamStyle). `numbered` also
   * means a parameter in a select list has no type until cast (`$1::bigint`).
   */
  readonly paramStyle: ParamStyle;
  /** `CREATE INDEX … WHERE …` (PostgreSQL, SQLite); MariaDB indexes every row. */
  readonly partialIndexes: boolean;
  /** How "insert unless the unique key exists" is spelled. */
  readonly insertIgnore: "on-conflict-do-nothing" | "on-duplicate-key-noop";
  /**
   * How "insert, or update the row whose unique key exists" is spelled:
   * `ON CONFLICT (key) DO UPDATE SET … [WHERE …]` (PostgreSQL, SQLite) or
   * `ON DUPLICATE KEY UPDATE …` (MariaDB). The latter has no WHERE, and its
   * affected-row count cannot tell an untouched row from an insert (mysql2
   * connects with FOUND_ROWS), so a write that must know whether it wrote is
   * spelled otherwise there.
   */
  readonly upsert: "on-conflict" | "on-duplicate-key";
  /**
   * The assignments of an UPDATE (and of `ON DUPLICATE KEY UPDATE`) run left
   * to right and each sees the ones before it (MariaDB/MySQL). Elsewhere every
   * expression reads the row as it was before the statement.
   */
  readonly sequentialAssignments: boolean;
  /**
   * `DELETE … LIMIT n` exists (MariaDB). PostgreSQL and SQLite pick the rows
   * in a subselect instead, which MariaDB cannot do (no subselect naming the
   * table it deletes from).
   */
  readonly deleteLimit: boolean;
  /**
   * An uncast parameter takes its type from its first use and keeps it in the
   * prepared statement (PostgreSQL), so raw SQL casts the numbers it binds
   * (`cast(… as bigint)`). SQLite and MariaDB take a number as it is.
   */
  readonly castParams: boolean;
  /**
   * The lock a database session holds until it ends, for the coordination's
   * locks (coordination/sql/sql-locks.ts): `advisory` is
   * `pg_try_advisory_lock(bigint)` (PostgreSQL, per database); `get-lock` is
   * `GET_LOCK(name, 0)` (MariaDB: names are server-wide and at most 64
   * characters); null: none, and none needed — one process per database file
   * (SQLite), so this process's own table of held keys is the lock.
   */
  readonly sessionLocks: "advisory" | "get-lock" | null;
  /**
   * How the migrations spell an id that only grows, even across deletes:
   * `bigserial` (PostgreSQL's sequence), `integer-autoincrement` (SQLite: a
   * plain rowid reuses max + 1) or `bigint-auto-increment` (MariaDB).
   */
  readonly growingId: "bigserial" | "integer-autoincrement" | "bigint-auto-increment";
  /**
   * A row trigger runs a function (PostgreSQL: `CREATE FUNCTION … RETURNS
   * trigger` in PL/pgSQL, then `EXECUTE FUNCTION` it). Elsewhere the trigger
   * holds its statements itself (`FOR EACH ROW BEGIN … END`, SQLite and MariaDB).
   */
  readonly triggerFunctions: boolean;
  /**
   * The planner knows nothing of a table's columns until a background
   * ANALYZE (autovacuum) reaches it, and a named statement keeps the plan it
   * made meanwhile (PostgreSQL): the store then analyzes young tables itself
   * after migrating (pg-stats-keeper.ts).
   */
  readonly lateStatistics: boolean;
  /**
   * Takes the lock that lets only this process open the database (SQLite: one
   * process per file, sqlite/process-lock.ts); null where the server
   * arbitrates between processes. Called once, when the database is opened.
   */
  readonly processLock: (() => ProcessLock) | null;
  /** Column type for JSON documents kept as text (MariaDB TEXT stops at 64 KiB). */
  readonly jsonText: "text" | "mediumtext";
  /** Raw SQL appended to CREATE TABLE, e.g. MariaDB engine, charset and collation. */
  readonly tableOptions: string | null;
  /**
   * The character set and collation every text column must have to compare
   * exactly (byte for byte, trailing spaces included), when the column's type
   * alone does not (MariaDB: `utf8mb4_bin` is PAD SPACE, so 'go' = 'go ');
   * migration 015 converts the tables made before it. null: text compares
   * exactly already (PostgreSQL's varchar and text, SQLite).
   */
  readonly exactText: { charset: string; collation: string } | null;
  /**
   * What a driver error means (driver-error.ts): unavailable, duplicate key,
   * deadlock, serialization or other. The store reports `unavailable` as the
   * domain's UnavailableError (unavailable-dialect.ts) and branches on the
   * others; no code above the dialect reads a driver's error codes.
   */
  readonly classifyError: ClassifyDriverError;
  /** The DATABASE_URL with any password replaced, for error messages. */
  readonly target: string;
}
