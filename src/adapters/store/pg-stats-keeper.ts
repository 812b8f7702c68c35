/**
 * Keeps PostgreSQL's planner statistics of the engine's tables fresh while they
 * are young.
 *
 * Why: until a table is first analyzed, PostgreSQL knows nothing about its
 * columns, and on the engine's lookups it often breaks a cost tie the wrong
 * way — a task by primary key read through `tasks_instance_ix` with only the
 * tenant as index condition, an instance joined by scanning every instance of
 * the tenant. Both are O(rows in the tenant). Autovacuum fixes it, but only on
 * its next round (autovacuum_naptime, 60 s by default), and a named statement
 * keeps a bad generic plan until then. Measured on 2026-11-30, one REST cycle
 * (start, assign ×3, 3 completes) after 3,000 cycles on a fresh database: 41 ms
 * before ANALYZE, 8.5 ms after.
 *
 * What: every few seconds, a table whose rows changed since its last analyze
 * by more than it had then (it at least doubled) and by more than MIN_CHANGES
 * is analyzed. Doubling keeps this to O(log rows) analyzes over a table's
 * life; at steady size autovacuum does the work. One node at a time per table
 * (transaction-level advisory lock); a failure only waits for the next round.
 */
import { sql, type Kysely } from "kysely";

const TABLES = ["instances", "tasks", "runs", "run_events", "run_signals"] as const;
/** Below this many changed rows plans cannot go far wrong. */
const MIN_CHANGES = 500;
/** Advisory-lock namespace (any constant; the table's index in TABLES is the second key). */
const LOCK_CLASS = 0x7466_7374; // "tfst"

export interface StatsKeeper {
  stop(): void;
}

interface TableStats {
  relname: string;
  n_live_tup: string | number;
  n_mod_since_analyze: string | number;
}

/** One round: analyzes the tables that have at least doubled since their last analyze. */
export async function refreshStaleStats(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<TableStats>`
    select relname, n_live_tup, n_mod_since_analyze from pg_stat_user_tables
    where schemaname = current_schema() and relname in (${sql.join([...TABLES])})`.execute(db);
  const analyzed: string[] = [];
  for (const r of rows) {
    const changed = Number(r.n_mod_since_analyze);
    const before = Math.max(0, Number(r.n_live_tup) - changed);
    if (changed < MIN_CHANGES || changed < before) continue;
    const key = TABLES.indexOf(r.relname as (typeof TABLES)[number]);
    const done = await db.transaction().execute(async (trx) => {
      const lock = await sql<{ ok: boolean }>`
        select pg_try_advisory_xact_lock(${LOCK_CLASS}, ${key}) as ok`.execute(trx);
      if (lock.rows[0]?.ok !== true) return false;
      await sql`analyze ${sql.table(r.relname)}`.execute(trx);
      return true;
    });
    if (done) analyzed.push(r.relname);
  }
  return analyzed;
}

export function startStatsKeeper(db: Kysely<unknown>, intervalMs = 2_000): StatsKeeper {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refreshStaleStats(db)
      .catch(() => undefined) // e.g. the pool is closing; next round
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
