/**
 * Named (prepared) statements for the pg pool under Kysely, chosen per call.
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and
 * plans it on every call. With seven indexes on `tasks` planning dominated the
 * short lookups the engine issues: a primary-key SELECT took 0.17 ms unnamed
 * and 0.055 ms named on this 2-core machine (SELECT 1: 0.03 ms). Naming each
 * distinct statement text prepares it once per connection.
 *
 * How: Kysely's PostgresDialect takes any pool that implements its
 * `PostgresPool` interface. `PreparingPool` is one, over a pg.Pool: its
 * clients hand each query to pg as `{ text, values, name }`, the name chosen
 * for that call by `statementName` — nothing of pg is patched.
 *
 * Only DML is named: PostgreSQL cannot prepare utility statements (BEGIN, DDL).
 * The set of texts is bounded — the query builder produces one text per shape,
 * and the only variable shapes (multi-row task inserts, inbox assignee counts)
 * are capped by MAX_USERS_PER_ASSIGNMENT and the directory's group count.
 * Caveat for later migrations: a prepared `select *` fails with "cached plan
 * must not change result type" if another node alters that table's columns
 * while this connection lives; such migrations must add columns in a release
 * before code selects them, or restart the pool.
 */
import { createHash } from "node:crypto";
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";
import type pg from "pg";

const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

const names = new Map<string, string>();

/**
 * The statement name for one call: `tf_` + a SHA-1 prefix of the text for DML,
 * undefined (unnamed) for everything else.
 */
export function statementName(text: string): string | undefined {
  if (!PREPARABLE.test(text)) return undefined;
  let name = names.get(text);
  if (name === undefined) {
    name = `tf_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/** One pg client as Kysely sees it; queries go out named where `statementName` says so. */
class PreparingClient implements PostgresPoolClient {
  constructor(readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    if (typeof sqlOrCursor !== "string") {
      // A cursor is a pg Submittable; pg returns it as it is.
      return this.client.query(
        sqlOrCursor as unknown as pg.Submittable,
      ) as unknown as PostgresCursor<R>;
    }
    const values = (parameters ?? []) as unknown[];
    const name = statementName(sqlOrCursor);
    const config: pg.QueryConfig = { text: sqlOrCursor, values };
    if (name !== undefined) config.name = name;
    return this.client.query(config) as unknown as Promise<PostgresQueryResult<R>>;
  }

  release(destroy?: boolean): void {
    this.client.release(destroy);
  }
}

/** Kysely's pool over a pg.Pool: one stable PreparingClient per pg client. */
export class PreparingPool implements PostgresPool {
  /** Kysely keeps one connection object per client it is handed, so the wrapper must not change. */
  private readonly clients = new WeakMap<pg.PoolClient, PreparingClient>();

  constructor(readonly pool: pg.Pool) {}

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapped = this.clients.get(client);
    if (wrapped === undefined) {
      wrapped = new PreparingClient(client);
      this.clients.set(client, wrapped);
    }
    return wrapped;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}
