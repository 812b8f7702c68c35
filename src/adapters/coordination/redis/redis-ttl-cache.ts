import type { RedisContext } from "../coordination-context.ts";
import type { TtlCache } from "../../../engine/coordination/ttl-cache.ts";

/** Not built yet: replaced by the implementation. */
export function redisTtlCache(_ctx: RedisContext): TtlCache {
  throw new Error("redisTtlCache is not built yet");
}
