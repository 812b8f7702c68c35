/**
 * Everything a coordination backend stored, as one text, for "the secret is
 * never stored" checks: on the SQL backends every row of the given tables
 * under the test's key prefix (read with a raw query on a second connection;
 * other tests may share the database), on Redis every key under the test's
 * prefix with its value, whatever its type. null on memory, which
 * has nothing to read from outside.
 */
import { sql } from "kysely";
import { Redis } from "ioredis";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { REDIS_TEST_URL, type TestCoordination } from "./coordination-backends.ts";

export async function storedText(
  tc: TestCoordination,
  tables: readonly string[],
): Promise<string | null> {
  const backend = tc.coordination.backend;
  if (backend === "memory") return null;
  if (backend === "redis") return redisText(tc.keyPrefix);
  if (tc.databaseUrl === null) throw new Error(`${backend} coordination without a database URL`);
  const db = openDatabase(tc.databaseUrl);
  try {
    const parts: string[] = [];
    for (const table of tables) {
      const { rows } = await sql`select * from ${sql.table(table)}
        where key_prefix = ${tc.keyPrefix}`.execute(db.coordinationContext.db);
      if (rows.length === 0)
        throw new Error(`${table} has no row under ${tc.keyPrefix}: nothing was stored to check`);
      parts.push(JSON.stringify(rows));
    }
    return parts.join("\n");
  } finally {
    await db.close();
  }
}

async function redisText(prefix: string): Promise<string> {
  const r = new Redis(REDIS_TEST_URL);
  try {
    const parts: string[] = [];
    let cursor = "0";
    do {
      const [next, keys] = await r.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      for (const key of keys) parts.push(key, JSON.stringify(await valueOf(r, key)));
    } while (cursor !== "0");
    if (parts.length === 0) throw new Error(`no keys under ${prefix}: nothing was stored to check`);
    return parts.join("\n");
  } finally {
    r.disconnect();
  }
}

async function valueOf(r: Redis, key: string): Promise<unknown> {
  switch (await r.type(key)) {
    case "string":
      return r.get(key);
    case "hash":
      return r.hgetall(key);
    case "set":
      return r.smembers(key);
    case "zset":
      return r.zrange(key, 0, -1, "WITHSCORES");
    case "list":
      return r.lrange(key, 0, -1);
    default:
      return null;
  }
}
