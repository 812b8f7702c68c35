/**
 * The statement side of the group-committing SQLite driver (group-commit.ts):
 * what a Kysely connection is there, and how one better-sqlite3 statement runs.
 */
import type Database from "better-sqlite3";
import type { CompiledQuery, DatabaseConnection, QueryResult } from "kysely";
import type { Batch } from "./batch-committer.ts";

/** The driver's entry point for one statement of a connection. */
export interface StatementExecutor {
  execute<R>(c: GroupCommitConnection, query: CompiledQuery): Promise<QueryResult<R>>;
}

/**
 * What a Kysely connection is here: a handle on the one SQLite connection that
 * knows whether it holds the lock and which logical transaction it runs.
 */
export class GroupCommitConnection implements DatabaseConnection {
  /** Taken by acquireConnection; given back early once a statement or transaction waits for its COMMIT. */
  holdsLock = true;
  /** The batch this connection's logical transaction runs in; null outside one. */
  tx: Batch | null = null;
  /**
   * The transaction is a SAVEPOINT in a batch others joined first. When it
   * opened the batch it is the physical transaction itself: nobody can join
   * while it holds the lock, so its rollback is a plain ROLLBACK and neither
   * SAVEPOINT nor RELEASE is needed (what a lone caller pays stays as before).
   */
  nested = false;

  constructor(private readonly driver: StatementExecutor) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, compiledQuery);
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    _chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.driver.execute<R>(this, compiledQuery);
    for (const row of rows) yield { rows: [row] };
  }
}

export function asConnection(connection: DatabaseConnection): GroupCommitConnection {
  if (!(connection instanceof GroupCommitConnection))
    throw new Error("not a connection of the group-commit SQLite driver");
  return connection;
}

export type Statement = Database.Statement<unknown[], unknown>;

export function exec<R>(stmt: Statement, parameters: readonly unknown[]): QueryResult<R> {
  // One array argument, as Kysely's own driver passes it: better-sqlite3 binds its items.
  const params = parameters as unknown[];
  if (stmt.reader) return { rows: stmt.all(params) as R[] };
  const { changes, lastInsertRowid } = stmt.run(params);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

export function rejected(error: unknown): Promise<never> {
  return Promise.reject(error instanceof Error ? error : new Error(String(error)));
}

export function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
