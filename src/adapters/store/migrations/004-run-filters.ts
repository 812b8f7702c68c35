/**
 * 004: who started a run, and the indexes the run and task list filters use.
 */
import type { Kysely, Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function runFilters(_d: StoreDialect): Migration {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {
      // Filled in by the change that needs it.
    },
  };
}
