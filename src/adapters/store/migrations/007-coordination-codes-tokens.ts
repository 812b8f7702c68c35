/**
 * 007: one-time codes and opaque tokens, stored hashed.
 *
 * coordination_codes holds at most one code per (tenant, key prefix, subject,
 * purpose). Its key is a SHA-256 of prefix, subject and purpose (`slot`), not
 * the three columns: subject and purpose may each be 512 characters, and on
 * MariaDB (utf8mb4: 4 bytes a character) 64 + 64 + 512 + 512 characters are
 * 4,608 bytes, past InnoDB's 3,072-byte key limit. The plain columns stay for
 * people reading the table.
 *
 * coordination_tokens keeps rotated (retired), revoked and expired tokens for
 * a day (forget_at), until cleanup removes them: a retired token presented
 * again is how reuse is detected.
 */
import { sql, type Kysely, type Migration } from "kysely";
import { MAX_COORDINATION_KEY_LENGTH } from "../../../engine/coordination/limits.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

const TENANT = "varchar(64)";
/** WF_KEY_PREFIX is at most 64 characters. */
const PREFIX = "varchar(64)";
const NAME = `varchar(${MAX_COORDINATION_KEY_LENGTH})`;
/** SHA-256 and HMAC-SHA-256 as hex. */
const HASH = "varchar(64)";
const UUID = "varchar(36)";

export function coordinationCodesTokens(d: StoreDialect): Migration {
  const tableEnd = d.tableOptions === null ? null : sql.raw(d.tableOptions);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("coordination_codes")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("slot", HASH, (c) => c.notNull())
        .addColumn("key_prefix", PREFIX, (c) => c.notNull())
        .addColumn("subject", NAME, (c) => c.notNull())
        .addColumn("purpose", NAME, (c) => c.notNull())
        // 16 random bytes as hex: which issue of the slot a guess was checked against.
        .addColumn("salt", "varchar(32)", (c) => c.notNull())
        .addColumn("code_hash", HASH, (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("max_attempts", "integer", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("coordination_codes_pk", ["tenant_id", "slot"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      // cleanup() of codes that expired unused.
      await db.schema
        .createIndex("coordination_codes_expiry_ix")
        .on("coordination_codes")
        .columns(["key_prefix", "expires_at"])
        .execute();

      await db.schema
        .createTable("coordination_tokens")
        .addColumn("tenant_id", TENANT, (c) => c.notNull())
        .addColumn("id", UUID, (c) => c.notNull())
        .addColumn("key_prefix", PREFIX, (c) => c.notNull())
        .addColumn("family_id", UUID, (c) => c.notNull())
        .addColumn("purpose", NAME, (c) => c.notNull())
        .addColumn("subject", NAME, (c) => c.notNull())
        .addColumn("token_hash", HASH, (c) => c.notNull())
        .addColumn("data", sql.raw(d.jsonText), (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("expires_at", "bigint")
        .addColumn("retired_at", "bigint")
        .addColumn("revoked_at", "bigint")
        // When cleanup may remove the row: a day after revocation, else retirement, else expiry.
        .addColumn("forget_at", "bigint")
        .addPrimaryKeyConstraint("coordination_tokens_pk", ["tenant_id", "id"])
        .$call((b) => (tableEnd ? b.modifyEnd(tableEnd) : b))
        .execute();

      const index = (name: string, columns: string[]) =>
        db.schema.createIndex(name).on("coordination_tokens").columns(columns);
      await index("coordination_tokens_hash_ux", ["token_hash"]).unique().execute();
      // list(): (64 + 64 + 512) × 4 + 8 = 2,568 bytes on MariaDB, under its 3,072.
      await index("coordination_tokens_list_ix", [
        "tenant_id",
        "key_prefix",
        "purpose",
        "created_at",
      ]).execute();
      await index("coordination_tokens_family_ix", ["tenant_id", "family_id"]).execute();
      // cleanup(): most tokens are live with no date to be forgotten at.
      const forget = index("coordination_tokens_forget_ix", ["key_prefix", "forget_at"]);
      await (
        d.partialIndexes ? forget.where(sql.ref("forget_at"), "is not", null) : forget
      ).execute();
    },
  };
}
