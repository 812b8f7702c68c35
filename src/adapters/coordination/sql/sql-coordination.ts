/**
 * Coordination on the store's own SQL database (SQLite, PostgreSQL, MariaDB):
 * tables made by the store's migrations, plus session-scoped locks on
 * PostgreSQL (advisory locks) and MariaDB (GET_LOCK) over dedicated
 * connections. The Kysely instance is the store's: this never closes it.
 */
import { sql } from "kysely";
import { lazy } from "../lazy.ts";
import type { Coordination } from "../../../engine/coordination/coordination.ts";
import type { SqlContext } from "../coordination-context.ts";
import { sqlLocks } from "./sql-locks.ts";
import { sqlOneTimeCodes } from "./sql-one-time-codes.ts";
import { sqlOpaqueTokens } from "./sql-opaque-tokens.ts";
import { sqlRateLimiters } from "./sql-rate-limiters.ts";
import { sqlTtlCache } from "./sql-ttl-cache.ts";

export function sqlCoordination(ctx: SqlContext): Coordination {
  const locks = lazy(() => sqlLocks(ctx));
  const limiters = lazy(() => sqlRateLimiters(ctx));
  const cache = lazy(() => sqlTtlCache(ctx));
  const codes = lazy(() => sqlOneTimeCodes(ctx, limiters.get()));
  const tokens = lazy(() => sqlOpaqueTokens(ctx));
  return {
    backend: ctx.backend,
    get locks() {
      return locks.get();
    },
    get limiters() {
      return limiters.get();
    },
    get cache() {
      return cache.get();
    },
    get codes() {
      return codes.get();
    },
    get tokens() {
      return tokens.get();
    },
    async ping() {
      await sql`select 1`.execute(ctx.db);
    },
    close: () => locks.built()?.close() ?? Promise.resolve(),
  };
}
