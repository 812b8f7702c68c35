/**
 * 003: workflows that worker nodes serve (so API-only nodes accept their names).
 */
import type { Kysely, Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function servedWorkflows(_d: StoreDialect): Migration {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {
      // Filled in by the change that needs it.
    },
  };
}
