/**
 * A prepared-statement cache for better-sqlite3 under Kysely.
 *
 * Kysely's SQLite driver calls `db.prepare(sql)` for every query, and SQLite
 * compiles the statement each time: on this machine a primary-key lookup cost
 * ~150 µs through Kysely against ~17 µs with a reused statement. The query
 * builder produces one SQL text per query shape, so a small LRU keyed by text
 * holds every hot statement. Reuse is safe: Kysely only calls `all`/`run`,
 * which finish synchronously, so a statement is never in use twice at once;
 * SQLite itself re-prepares a cached statement after a schema change.
 */
import type Database from "better-sqlite3";
import { LRUCache } from "lru-cache";

/** Distinct shapes are a few dozen; the cap only bounds pathological callers. */
const MAX_STATEMENTS = 500;

export function withStatementCache(db: Database.Database): Database.Database {
  const prepare = db.prepare.bind(db);
  const cache = new LRUCache<string, Database.Statement>({ max: MAX_STATEMENTS });
  const cached = (source: string) => {
    let stmt = cache.get(source);
    if (stmt === undefined) {
      stmt = prepare(source);
      cache.set(source, stmt);
    }
    return stmt;
  };
  (db as unknown as { prepare: (source: string) => Database.Statement }).prepare = cached;
  return db;
}
