/**
 * A Kysely driver for better-sqlite3 that commits in groups.
 *
 * Kysely's own SqliteDriver commits every transaction and every autocommit
 * statement on its own: a durable workflow costs ~5 commits, each writing WAL
 * frames for the same few pages. Here many logical transactions share one
 * physical one:
 *
 * - The first statement of a batch opens a physical write transaction
 *   (`BEGIN IMMEDIATE`, as before: it takes the file's write lock up front and
 *   another process waits up to busy_timeout at its own BEGIN, never half-way).
 * - A logical (Kysely) transaction is a SAVEPOINT inside it: begin →
 *   `SAVEPOINT`, commit → `RELEASE`, rollback → `ROLLBACK TO` + `RELEASE`. An
 *   autocommit statement simply runs inside the batch; when it fails, SQLite
 *   has already undone that one statement, so it is rejected at once.
 * - Nobody learns a result before it is durable: every statement and every
 *   logical commit of the batch resolves only once the physical `COMMIT` has
 *   succeeded. Reads too, since they may have seen rows of other members; a
 *   read while no batch is open sees committed rows only and resolves at once.
 *   If the COMMIT fails, or an error makes SQLite drop the transaction
 *   (`db.inTransaction` turns false), every member is rejected with it.
 * - When: as soon as the connection would go idle, i.e. when a member joins
 *   and nobody is queued for the connection lock. Under concurrency the
 *   callers queue behind each other (each holds the lock only for its
 *   statement or transaction), so the batch collects everybody who arrived in
 *   the meantime — with 32 workflows in flight, about one statement or
 *   transaction of each — and the last one in the queue commits for all. A
 *   lone caller commits at once, so the sequential latency stays what it was
 *   (an earlier version waited for setImmediate before every COMMIT and added
 *   ~0.2 ms to a sequential workflow). Bounds: a batch is also committed at
 *   MAX_BATCH_MEMBERS, and after one macrotask at most (a setImmediate armed
 *   when the first member waits, which takes the lock ahead of every queued
 *   caller). The COMMIT never interrupts a logical transaction: it needs the
 *   lock. So a batch lives at most one event-loop turn plus the logical
 *   transaction that was mid-flight, and another process waits for the write
 *   lock about as long as it did for one transaction before.
 *
 * The event loop gets a turn at least every 5 ms of SQL (the lock's turn
 * budget, connection-lock.ts): a queue of 2,000 transactions used to
 * run as one synchronous stretch of seconds, during which the server could
 * accept no connection and read no socket.
 *
 * The batch amortises the commit and, more importantly, lets the page cache
 * absorb the repeated writes of the same pages, so the WAL receives each dirty
 * page once per batch instead of once per statement. Concurrency inside the
 * process is unchanged: one logical transaction at a time holds the
 * connection (`ConnectionLock`), so `lockInstance` / `lockTask` stay plain
 * selects. A logical transaction sees the uncommitted rows of earlier members
 * of its batch, which is what serial execution means; it cannot tell anybody
 * before they are durable, because its own commit waits for the same COMMIT.
 *
 * Durability is unchanged too. The file runs in WAL mode with
 * synchronous=NORMAL: a COMMIT appends its frames to the WAL with write(2),
 * and the WAL is fsynced at checkpoints. A committed transaction therefore
 * survives any crash of the application (kill -9 included: the frames are in
 * the OS page cache, and the next opener recovers them from the WAL); only an
 * OS crash or power loss can lose the last commits, exactly as before. Group
 * commit does not change what COMMIT means, only how many happen.
 *
 * The parts: this file is the Kysely Driver (connections, logical
 * transactions, statements); batch-committer.ts opens, joins and commits the
 * physical transaction; group-commit-connection.ts is the connection handle
 * and the execution of one statement; connection-lock.ts the lock.
 *
 * Limits: statements that cannot run inside a transaction (VACUUM, a PRAGMA
 * such as journal_mode) must run at open, before the first batch; and
 * streamQuery reads all rows first (better-sqlite3 would otherwise hold the
 * statement busy between yields, and the rows must not be delivered before
 * the COMMIT anyway).
 */
import type Database from "better-sqlite3";
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from "kysely";
import { BatchCommitter, lost, type Batch } from "./batch-committer.ts";
import { ConnectionLock } from "./connection-lock.ts";
import {
  asConnection,
  exec,
  GroupCommitConnection,
  quote,
  rejected,
  type StatementExecutor,
} from "./group-commit-connection.ts";

export class GroupCommitSqliteDriver implements Driver, StatementExecutor {
  readonly #open: () => Database.Database;
  readonly #lock = new ConnectionLock();
  #db!: Database.Database;
  #batches!: BatchCommitter;

  /** `open` returns a connection with every PRAGMA already set (they cannot change inside a batch). */
  constructor(open: () => Database.Database) {
    this.#open = open;
  }

  init(): Promise<void> {
    this.#db = this.#open();
    this.#batches = new BatchCommitter(this.#db, this.#lock);
    return Promise.resolve();
  }

  /**
   * Takes the lock, in call order, as Kysely's own SqliteDriver does: callers
   * (the durable engine) may fire two store calls without awaiting the first
   * and rely on them reaching SQLite in that order.
   */
  acquireConnection(): Promise<DatabaseConnection> {
    const c = new GroupCommitConnection(this);
    if (this.#lock.tryAcquire()) return Promise.resolve(c);
    return this.#lock.acquire().then(() => c);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const c = asConnection(connection);
    // A logical transaction abandoned without commit or rollback must not keep the lock.
    if (c.tx !== null) await this.rollbackTransaction(c);
    this.#giveBack(c);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const c = asConnection(connection);
    await this.#retake(c); // held until commitTransaction / rollbackTransaction
    const nested = this.#batches.current !== null;
    const batch = this.#batches.open();
    if (nested) this.#batches.savepoint();
    c.tx = batch;
    c.nested = nested;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = asConnection(connection);
    const batch = c.tx;
    if (batch === null) throw new Error("commit without a transaction");
    c.tx = null;
    let durable: Promise<void>;
    try {
      if (batch !== this.#batches.current) throw lost(batch);
      if (c.nested) this.#batches.release(batch);
      durable = this.#batches.join(batch);
    } finally {
      this.#giveBack(c);
    }
    await durable;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = asConnection(connection);
    const batch = c.tx;
    if (batch === null) return; // committed, or its commit failed with the batch
    c.tx = null;
    let settled: Promise<void> | undefined;
    try {
      if (batch === this.#batches.current && !c.nested) {
        // The batch is this transaction alone: nothing else to wait for.
        this.#batches.rollbackQuietly();
        this.#batches.fail(batch, undefined);
      } else if (batch === this.#batches.current) {
        this.#batches.undoSavepoint(batch);
        if (batch === this.#batches.current) settled = this.#batches.join(batch);
      }
    } finally {
      this.#giveBack(c);
    }
    // The transaction may have read rows of other members and the caller is
    // about to act on its error: deliver it after the COMMIT like any result.
    // The batch's fate does not change that error, so it is not reported here.
    await settled?.catch(() => undefined);
  }

  savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    return this.#raw(connection, `savepoint ${quote(name)}`);
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    return this.#raw(connection, `rollback to ${quote(name)}`);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    return this.#raw(connection, `release ${quote(name)}`);
  }

  async destroy(): Promise<void> {
    const open = this.#batches.current;
    if (open !== null) await this.#batches.commitLater(open);
    this.#db.close();
  }

  /** A statement from connection `c`: inside its logical transaction, or autocommit in the batch. */
  execute<R>(c: GroupCommitConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    if (c.tx !== null) {
      try {
        return Promise.resolve(this.#inTransaction<R>(c.tx, query));
      } catch (error) {
        return rejected(error);
      }
    }
    if (c.holdsLock) return this.#autocommit<R>(c, query);
    // A connection used again after its first statement (Kysely's db.connection()).
    return this.#retake(c).then(() => this.#autocommit<R>(c, query));
  }

  async #retake(c: GroupCommitConnection): Promise<void> {
    if (c.holdsLock) return;
    await this.#lock.acquire();
    c.holdsLock = true;
  }

  #giveBack(c: GroupCommitConnection): void {
    if (!c.holdsLock) return;
    c.holdsLock = false;
    this.#lock.release();
  }

  async #raw(connection: DatabaseConnection, sql: string): Promise<void> {
    await this.execute(asConnection(connection), CompiledQuery.raw(sql));
  }

  /** The caller holds the lock through its logical transaction. */
  #inTransaction<R>(batch: Batch, query: CompiledQuery): QueryResult<R> {
    if (batch !== this.#batches.current) throw lost(batch);
    const stmt = this.#db.prepare(query.sql);
    try {
      return exec<R>(stmt, query.parameters);
    } catch (error) {
      // The caller rolls back to its savepoint, unless SQLite dropped the whole batch.
      if (!this.#db.inTransaction) this.#batches.fail(batch, error);
      throw error;
    }
  }

  /** `c` holds the lock; given back here before the result waits for the COMMIT. */
  #autocommit<R>(c: GroupCommitConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    let result: QueryResult<R>;
    let durable: Promise<void>;
    try {
      const stmt = this.#db.prepare(query.sql);
      // No batch open: nothing of ours is uncommitted, so a read sees committed
      // rows only; and a write with nobody queued behind it would be a batch of
      // one, committed at once — SQLite's implicit transaction does exactly
      // that (its write statement takes the write lock at its start, where
      // busy_timeout applies), before the result is returned.
      if (this.#batches.current === null && (stmt.readonly || !this.#lock.hasWaiters))
        return Promise.resolve(exec<R>(stmt, query.parameters));
      const batch = this.#batches.open();
      try {
        result = exec<R>(stmt, query.parameters);
      } catch (error) {
        // SQLite undid this statement; the batch goes on unless it was dropped too.
        if (!this.#db.inTransaction) this.#batches.fail(batch, error);
        throw error;
      }
      durable = this.#batches.join(batch);
    } catch (error) {
      return rejected(error);
    } finally {
      this.#giveBack(c);
    }
    return durable.then(() => result);
  }
}
