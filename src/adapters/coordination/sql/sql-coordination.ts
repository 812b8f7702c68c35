/**
 * Coordination on the store's own SQL database (SQLite, PostgreSQL, MariaDB):
 * tables made by the store's migrations, plus session-scoped locks on
 * PostgreSQL (advisory locks) and MariaDB (GET_LOCK) over dedicated
 * connections. The Kysely instance is the store's: this never closes it.
 */
import { sql } from "kysely";
import { lazyCoordination } from "../lazy-coordination.ts";
import type { Coordination } from "../../../engine/coordination/coordination-port.ts";
import type { SqlContext } from "../coordination-context.ts";
import { sqlLocks } from "./sql-locks.ts";
import { sqlOneTimeCodes } from "./sql-one-time-codes.ts";
import { sqlOpaqueTokens } from "./sql-opaque-tokens.ts";
import { sqlRateLimiters } from "./sql-rate-limiters.ts";
import { sqlTtlCache } from "./sql-ttl-cache.ts";

export function sqlCoordination(ctx: SqlContext): Coordination {
  return lazyCoordination({
    backend: ctx.dialect.name,
    locks: () => sqlLocks(ctx),
    limiters: () => sqlRateLimiters(ctx),
    cache: () => sqlTtlCache(ctx),
    codes: (limiters) => sqlOneTimeCodes(ctx, limiters),
    tokens: () => sqlOpaqueTokens(ctx),
    async ping() {
      await sql`select 1`.execute(ctx.db);
    },
  });
}
