/**
 * The static list of migrations. Static (not a folder scan) so it works the same
 * from source, from a bundle and from node_modules. Names sort in apply order;
 * migrations are forward-only: never edit or remove one that has shipped, add
 * the next number instead.
 */
import type { Migration, MigrationProvider } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { initialSchema } from "./001-initial-schema.ts";
import { durableRuns } from "./002-durable-runs.ts";

export function migrationsFor(d: StoreDialect): Record<string, Migration> {
  return {
    "001_initial_schema": initialSchema(d),
    "002_durable_runs": durableRuns(d),
  };
}

export function migrationProvider(d: StoreDialect): MigrationProvider {
  return { getMigrations: () => Promise.resolve(migrationsFor(d)) };
}
