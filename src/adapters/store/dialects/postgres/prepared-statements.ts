/**
 * Named (prepared) statements for the pg pool under Kysely.
 *
 * Kysely sends every query as an unnamed statement, so PostgreSQL parses and
 * plans it on every call. With seven indexes on `tasks` planning dominated the
 * short lookups the engine issues: a primary-key SELECT took 0.17 ms unnamed
 * and 0.055 ms named on this 2-core machine (SELECT 1: 0.03 ms). Naming each
 * distinct statement text prepares it once per connection.
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
import type pg from "pg";

const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
const PATCHED = Symbol("taskflow.prepared");

const names = new Map<string, string>();
function nameFor(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `tf_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

type Query = (text: unknown, values?: unknown) => Promise<unknown>;

function preparing(client: pg.PoolClient): pg.PoolClient {
  const marked = client as pg.PoolClient & { [PATCHED]?: true };
  if (marked[PATCHED]) return client;
  const query = client.query.bind(client) as Query;
  const patched: Query = (text, values) =>
    typeof text === "string" && Array.isArray(values) && PREPARABLE.test(text)
      ? query({ name: nameFor(text), text, values })
      : query(text, values);
  (client as unknown as { query: Query }).query = patched;
  marked[PATCHED] = true;
  return client;
}

/** Makes every client the pool hands out use named statements for DML. */
export function withPreparedStatements(pool: pg.Pool): pg.Pool {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () =>
    preparing(await connect());
  return pool;
}
