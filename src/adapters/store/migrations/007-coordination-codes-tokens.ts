/**
 * 007: one-time codes and opaque tokens, stored hashed.
 */
import type { Kysely, Migration } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function coordinationCodesTokens(_d: StoreDialect): Migration {
  return {
    async up(_db: Kysely<unknown>): Promise<void> {
      // Filled in by the change that needs it.
    },
  };
}
