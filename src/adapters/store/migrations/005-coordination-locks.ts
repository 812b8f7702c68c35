/**
 * 005: fencing tokens of coordination locks (and the lock rows where a backend keeps locks in a table).
 */
import type { Kysely, Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function coordinationLocks(_d: StoreDialect): Migration {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {
      // Filled in by the change that needs it.
    },
  };
}
