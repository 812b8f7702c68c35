/**
 * The coordination tables as Kysely sees them, as db-schema.ts is the
 * store's: made by the store's migrations (005, 006, 007) but read and written
 * only by this adapter, so they are typed here, beside their SQL. Times are
 * epoch milliseconds in BIGINT, which pg returns as a string; drivers hand
 * other BIGINTs back as number, bigint or string, hence `unknown` where the
 * code converts them itself.
 */
import type { ColumnType } from "kysely";

type Millis = ColumnType<number | string, number, number>;
type NullableMillis = ColumnType<number | string | null, number | null, number | null>;
type Count = ColumnType<number, number, number>;
type BigCount = ColumnType<unknown, number | bigint, number | bigint>;

/** Fencing tokens, one row per (tenant, lock name): migration 005. */
export interface LockTokensTable {
  tenant_id: string;
  name_key: string;
  token: BigCount;
}

/** Rate-limiter counters, one row per (tenant, key hash): migration 006. */
export interface RateCountersTable {
  tenant_id: string;
  key_hash: string;
  window_start: BigCount;
  points: BigCount;
  prev_points: BigCount;
  taken: BigCount;
  expires_at: Millis;
}

/** The TTL cache, one row per (tenant, key hash); the value is JSON text: migration 006. */
export interface CacheTable {
  tenant_id: string;
  key_hash: string;
  value: string;
  expires_at: Millis;
}

/** One-time codes, one row per (tenant, slot): migration 007. */
export interface CodesTable {
  tenant_id: string;
  slot: string;
  key_prefix: string;
  subject: string;
  purpose: string;
  salt: string;
  code_hash: string;
  attempts: Count;
  max_attempts: Count;
  created_at: Millis;
  expires_at: Millis;
}

/** Opaque tokens, one row per token, found by its secret's hash: migration 007. */
export interface TokensTable {
  tenant_id: string;
  id: string;
  key_prefix: string;
  family_id: string;
  purpose: string;
  subject: string;
  token_hash: string;
  data: string;
  created_at: Millis;
  expires_at: NullableMillis;
  retired_at: NullableMillis;
  revoked_at: NullableMillis;
  forget_at: NullableMillis;
}

export interface CoordinationSchema {
  coordination_lock_tokens: LockTokensTable;
  coord_rate_counters: RateCountersTable;
  coord_cache: CacheTable;
  coordination_codes: CodesTable;
  coordination_tokens: TokensTable;
}
