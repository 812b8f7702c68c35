/**
 * `taskflow migrate` without the rest of the engine: the CLI loads this file
 * alone (src/cli/run-cli.ts), not the server it does not start.
 */
import type { TaskflowConfig } from "../config/config.ts";
import { openDatabase } from "../adapters/store/open-database.ts";

/**
 * Applies pending migrations and closes the store.
 * Resolves with the names of the migrations it applied (none: up to date).
 */
export async function migrateDatabase(
  config: Pick<TaskflowConfig, "databaseUrl"> & Partial<Pick<TaskflowConfig, "sqliteSynchronous">>,
): Promise<string[]> {
  const database = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
  });
  try {
    return await database.migrate();
  } finally {
    await database.close();
  }
}
