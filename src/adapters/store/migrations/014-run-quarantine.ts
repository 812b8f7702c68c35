/**
 * 014: quarantine of runs that keep failing on replay (docs/durable.md,
 * Quarantine). `stalled_executions` counts the claims of a run since it last
 * got anywhere: a claim adds one, but starts the count again at 1 when the
 * run's history has grown since the previous claim (`stalled_seq`, the
 * highest seq that claim saw); a suspension or a continue-as-new sets it back
 * to 0. A run claimed past the worker's limit
 * is moved to status `quarantined` (wake_at null: no claim finds it again)
 * instead of being executed. No index: it is read only from rows a claim
 * already holds.
 */
import type { Kysely, Migration } from "kysely";

export function runQuarantine(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("runs")
        .addColumn("stalled_executions", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable("runs").addColumn("stalled_seq", "bigint").execute();
    },
  };
}
