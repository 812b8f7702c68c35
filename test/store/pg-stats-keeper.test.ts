/**
 * PostgreSQL only (the other backends keep their own statistics: InnoDB
 * recalculates after 10 % of rows change; SQLite's planner needs none for
 * these lookups): young tables are analyzed when they at least double.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { createStore } from "../../src/adapters/store/create-store.ts";
import { refreshStaleStats } from "../../src/adapters/store/pg-stats-keeper.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";

const PG = { name: "postgres" } as const;

async function addSignals(db: Kysely<unknown>, n: number, from: number): Promise<void> {
  await sql`insert into run_signals (tenant_id, run_id, id, name, payload, at, consumed_seq)
    select 't', 'r', 'id-' || g, 'n', 'null', 0, null
    from generate_series(${from}::int, ${from + n - 1}::int) g`.execute(db);
}

/** pg_stat counters reach shared memory when a backend goes idle (≤ 1 s). */
async function analyzedAfterStats(db: Kysely<unknown>): Promise<string[]> {
  for (let i = 0; i < 30; i++) {
    const got = await refreshStaleStats(db);
    if (got.length > 0) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  return [];
}

it(
  "a table is analyzed when it has at least doubled since its last analyze, not before",
  await backendTestOptions(PG),
  async () => {
    const t = await createTestDatabase(PG);
    const store = createStore(t.url);
    await store.migrate();
    await store.close();
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: t.url, max: 2 }) }),
    });
    try {
      await addSignals(db, 100, 0);
      assert.deepEqual(await refreshStaleStats(db), [], "100 changes are below the minimum");
      await addSignals(db, 1_000, 100);
      assert.deepEqual(await analyzedAfterStats(db), ["run_signals"]);
      const after = await sql<{ n: string }>`
      select coalesce(reltuples, 0)::bigint as n from pg_class where relname = 'run_signals'`.execute(
        db,
      );
      assert.equal(Number(after.rows[0]!.n), 1_100);
      // +600 on 1,100: not doubled yet.
      await addSignals(db, 600, 1_100);
      await new Promise((r) => setTimeout(r, 1_200));
      assert.deepEqual(await refreshStaleStats(db), []);
      await addSignals(db, 600, 1_700);
      assert.deepEqual(await analyzedAfterStats(db), ["run_signals"]);
    } finally {
      await db.destroy();
      await t.drop();
    }
  },
);
