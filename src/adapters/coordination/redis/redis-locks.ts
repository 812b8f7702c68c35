import type { RedisContext } from "../coordination-context.ts";
import type { Locks } from "../../../engine/coordination/locks.ts";

/** Not built yet: replaced by the implementation. */
export function redisLocks(_ctx: RedisContext): Locks {
  throw new Error("redisLocks is not built yet");
}
