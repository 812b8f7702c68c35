import type { MemoryContext } from "../coordination-context.ts";
import type { OneTimeCodes } from "../../../engine/coordination/one-time-codes.ts";
import type { RateLimiters } from "../../../engine/coordination/rate-limiter.ts";

/** Not built yet: replaced by the implementation. */
export function memoryOneTimeCodes(_ctx: MemoryContext, _limiters: RateLimiters): OneTimeCodes {
  throw new Error("memoryOneTimeCodes is not built yet");
}
