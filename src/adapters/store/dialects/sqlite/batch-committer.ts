/**
 * The commit side of the group-committing SQLite driver (group-commit.ts): the
 * one open physical write transaction (a `Batch`), the members waiting for its
 * COMMIT, and when that COMMIT runs — at once when nobody is queued for the
 * connection lock, at MAX_BATCH_MEMBERS, or at the latest one macrotask later
 * (a setImmediate that takes the lock ahead of every queued caller).
 *
 * Every method but `commitLater` expects its caller to hold the connection
 * lock (connection-lock.ts); `commitLater` takes it itself.
 */
import type Database from "better-sqlite3";
import type { ConnectionLock } from "./connection-lock.ts";

/**
 * A batch is committed at this many members even if callers are still queued.
 * With 32 workflows in flight a batch holds about 32; the cap only bounds
 * what another process waits for under a flood.
 */
const MAX_BATCH_MEMBERS = 512;

/** Our savepoint; logical transactions never overlap, so one name is enough. */
const SAVEPOINT = '"taskflow_group_commit"';

interface Member {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One physical write transaction and the members waiting for its COMMIT. */
export class Batch {
  members: Member[] = [];
  /** The macrotask backstop is armed. */
  timer = false;
  /** Set when the batch failed: every member was rejected with it. */
  error: unknown;
}

type Statement = Database.Statement<unknown[], unknown>;

function settle(batch: Batch, error?: unknown): void {
  const members = batch.members;
  batch.members = [];
  if (error !== undefined) batch.error = error;
  for (const m of members) {
    if (error === undefined) m.resolve();
    else m.reject(error);
  }
}

/** Why a logical transaction can no longer use its batch. */
export function lost(batch: Batch): Error {
  return batch.error instanceof Error
    ? batch.error
    : new Error("SQLite dropped the transaction", { cause: batch.error });
}

export class BatchCommitter {
  /** The open physical transaction, or null between batches. */
  current: Batch | null = null;
  readonly #begin: Statement;
  readonly #commit: Statement;
  readonly #rollback: Statement;
  readonly #savepoint: Statement;
  readonly #release: Statement;
  readonly #rollbackTo: Statement;

  constructor(
    private readonly db: Database.Database,
    private readonly lock: ConnectionLock,
  ) {
    this.#begin = db.prepare("begin immediate");
    this.#commit = db.prepare("commit");
    this.#rollback = db.prepare("rollback");
    this.#savepoint = db.prepare(`savepoint ${SAVEPOINT}`);
    this.#release = db.prepare(`release ${SAVEPOINT}`);
    this.#rollbackTo = db.prepare(`rollback to ${SAVEPOINT}`);
  }

  /** The open batch, or a new one (`BEGIN IMMEDIATE`). */
  open(): Batch {
    if (this.current !== null) return this.current;
    this.#begin.run(); // may wait up to busy_timeout for another process
    const batch = new Batch();
    this.current = batch;
    return batch;
  }

  /** A nested logical transaction begins. */
  savepoint(): void {
    this.#savepoint.run();
  }

  /** A nested logical transaction commits; on failure its work is undone. */
  release(batch: Batch): void {
    try {
      this.#release.run();
    } catch (error) {
      this.undoSavepoint(batch);
      throw error;
    }
  }

  /**
   * The caller has done its work in `batch`: its result is delivered with the
   * COMMIT, which runs now if nobody is queued behind it.
   */
  join(batch: Batch): Promise<void> {
    const durable = new Promise<void>((resolve, reject) => {
      batch.members.push({ resolve, reject });
    });
    if (!this.lock.hasWaiters || batch.members.length >= MAX_BATCH_MEMBERS) {
      this.commitNow(batch);
    } else if (!batch.timer) {
      batch.timer = true;
      setImmediate(() => void this.commitLater(batch));
    }
    return durable;
  }

  /** The backstop: commits `batch` at its turn of the lock, ahead of the queue. */
  async commitLater(batch: Batch): Promise<void> {
    await this.lock.acquireFirst();
    try {
      this.commitNow(batch);
    } finally {
      this.lock.release();
    }
  }

  commitNow(batch: Batch): void {
    if (batch !== this.current) return; // committed or failed already
    this.current = null;
    try {
      this.#commit.run();
    } catch (error) {
      this.rollbackQuietly();
      settle(batch, error);
      return;
    }
    settle(batch);
  }

  /** The caller's savepoint is the innermost one left. */
  undoSavepoint(batch: Batch): void {
    try {
      this.#rollbackTo.run();
      this.#release.run();
    } catch (error) {
      // The batch can no longer be trusted to hold exactly its members' work.
      this.rollbackQuietly();
      this.fail(batch, error);
    }
  }

  /**
   * SQLite dropped (or we rolled back) the physical transaction: everybody in
   * it fails (nobody when `batch` held only the transaction that rolled back).
   */
  fail(batch: Batch, error: unknown): void {
    if (this.current === batch) this.current = null;
    settle(batch, error);
  }

  rollbackQuietly(): void {
    if (!this.db.inTransaction) return;
    try {
      this.#rollback.run();
    } catch {
      // The connection is unusable; the next BEGIN reports it.
    }
  }
}
