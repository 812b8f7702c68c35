/**
 * 006: coordination counters (rate limits) and the TTL key-value cache.
 */
import type { Kysely, Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function coordinationCountersCache(_d: StoreDialect): Migration {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {
      // Filled in by the change that needs it.
    },
  };
}
