/**
 * An `id` primary key that only grows, even across deletes, as each dialect
 * spells it (StoreDialect.growingId): for tables read in id order from a last
 * id seen (the cache's mutations, the tasks' trail).
 */
import type { CreateTableBuilder } from "kysely";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export function withGrowingId<T extends string>(
  d: StoreDialect,
  b: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, "id"> {
  switch (d.growingId) {
    case "bigserial":
      return b.addColumn("id", "bigserial", (c) => c.primaryKey());
    case "integer-autoincrement":
      return b.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
    case "bigint-auto-increment":
      return b.addColumn("id", "bigint", (c) => c.primaryKey().autoIncrement());
  }
}
