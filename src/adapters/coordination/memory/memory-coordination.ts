/**
 * Coordination in this process's memory: for one process (tests, a single
 * embedded node). Nothing is shared with another process and nothing survives
 * a restart.
 */
import { lazy } from "../lazy.ts";
import type { Coordination } from "../../../engine/coordination/coordination.ts";
import type { MemoryContext } from "../coordination-context.ts";
import { memoryLocks } from "./memory-locks.ts";
import { memoryOneTimeCodes } from "./memory-one-time-codes.ts";
import { memoryOpaqueTokens } from "./memory-opaque-tokens.ts";
import { memoryRateLimiters } from "./memory-rate-limiters.ts";
import { memoryTtlCache } from "./memory-ttl-cache.ts";

export function memoryCoordination(ctx: MemoryContext): Coordination {
  const locks = lazy(() => memoryLocks(ctx));
  const limiters = lazy(() => memoryRateLimiters(ctx));
  const cache = lazy(() => memoryTtlCache(ctx));
  const codes = lazy(() => memoryOneTimeCodes(ctx, limiters.get()));
  const tokens = lazy(() => memoryOpaqueTokens(ctx));
  return {
    backend: "memory",
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
    ping: () => Promise.resolve(),
    close: () => locks.built()?.close() ?? Promise.resolve(),
  };
}
