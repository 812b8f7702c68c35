import type { MemoryContext } from "../coordination-context.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function memoryRateLimiters(_ctx: MemoryContext): RateLimiters {
  throw new Error("memoryRateLimiters is not built yet");
}
