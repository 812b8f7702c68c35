/**
 * A store dialect: the small set of parts that differ between backends, in the
 * style of Kysely's own `src/dialect/` (a dialect is a factory of parts). The
 * stores (task-store/, run-store/, sql-reads.ts) are written once against this
 * interface and branch on its capability flags only where the databases'
 * semantics differ; no code above the dialect tests a backend's name.
 */
import type { Dialect } from "kysely";
import type { ClassifyDriverError } from "./driver-error.ts";

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
