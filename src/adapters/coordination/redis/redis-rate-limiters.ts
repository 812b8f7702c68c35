import type { RedisContext } from "../coordination-context.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function redisRateLimiters(_ctx: RedisContext): RateLimiters {
  throw new Error("redisRateLimiters is not built yet");
}
