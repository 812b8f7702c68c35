import type { RedisContext } from "../coordination-context.ts";
import type { OneTimeCodes } from "../../../engine/coordination/one-time-codes.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function redisOneTimeCodes(_ctx: RedisContext, _limiters: RateLimiters): OneTimeCodes {
  throw new Error("redisOneTimeCodes is not built yet");
}
