/**
 * Coordination in this process's memory: for one process (tests, a single
 * embedded node). Nothing is shared with another process and nothing survives
 * a restart.
 */
import type { Coordination } from "../../../engine/coordination/coordination-port.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { lazyCoordination } from "../lazy-coordination.ts";
import { memoryLocks } from "./memory-locks.ts";
import { memoryOneTimeCodes } from "./memory-one-time-codes.ts";
import { memoryOpaqueTokens } from "./memory-opaque-tokens.ts";
import { memoryRateLimiters } from "./memory-rate-limiters.ts";
import { memoryTtlCache } from "./memory-ttl-cache.ts";

export function memoryCoordination(ctx: MemoryContext): Coordination {
  return lazyCoordination({
    backend: "memory",
    locks: () => memoryLocks(ctx),
    limiters: () => memoryRateLimiters(ctx),
    cache: () => memoryTtlCache(ctx),
    codes: (limiters) => memoryOneTimeCodes(ctx, limiters),
    tokens: () => memoryOpaqueTokens(ctx),
    ping: () => Promise.resolve(),
  });
}
