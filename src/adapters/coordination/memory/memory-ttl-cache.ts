import type { MemoryContext } from "../coordination-context.ts";
import type { TtlCache } from "../../../engine/coordination/ttl-cache.ts";

/** Not built yet: replaced by the implementation. */
export function memoryTtlCache(_ctx: MemoryContext): TtlCache {
  throw new Error("memoryTtlCache is not built yet");
}
