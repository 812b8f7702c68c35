/**
 * Makes stored tokens look as if they had been dead for more than a day, so
 * cleanup() can be tested without waiting one: on the SQL backends their
 * forget_at moves to the distant past (a raw UPDATE on a second connection),
 * on Redis their score in the cleanup set does. Memory cannot be reached from
 * outside; callers skip it.
 */
import { sql } from "kysely";
import { Redis } from "ioredis";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { REDIS_TEST_URL, type TestCoordination } from "./coordination-backends.ts";

export async function ageTokens(
  tc: TestCoordination,
  tenant: string,
  ids: readonly string[],
): Promise<void> {
  const backend = tc.coordination.backend;
  if (backend === "memory") throw new Error("memory tokens cannot be aged from outside");
  if (backend === "redis") {
    const r = new Redis(REDIS_TEST_URL);
    try {
      for (const id of ids) await r.zadd(`${tc.keyPrefix}tok:gc`, 1, `${tenant}:${id}`);
    } finally {
      r.disconnect();
    }
    return;
  }
  if (tc.databaseUrl === null) throw new Error(`${backend} coordination without a database URL`);
  const db = openDatabase(tc.databaseUrl);
  try {
    for (const id of ids) {
      await sql`update coordination_tokens set forget_at = 1
        where tenant_id = ${tenant} and id = ${id}`.execute(db.coordinationContext.db);
    }
  } finally {
    await db.close();
  }
}
