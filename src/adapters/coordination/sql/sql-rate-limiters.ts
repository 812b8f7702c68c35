import type { SqlContext } from "../coordination-context.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function sqlRateLimiters(_ctx: SqlContext): RateLimiters {
  throw new Error("sqlRateLimiters is not built yet");
}
