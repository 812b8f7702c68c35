import type { SqlContext } from "../coordination-context.ts";
import type { OneTimeCodes } from "../../../engine/coordination/one-time-codes.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function sqlOneTimeCodes(_ctx: SqlContext, _limiters: RateLimiters): OneTimeCodes {
  throw new Error("sqlOneTimeCodes is not built yet");
}
