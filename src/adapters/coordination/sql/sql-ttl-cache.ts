import type { SqlContext } from "../coordination-context.ts";
import type { TtlCache } from "../../../engine/coordination/ttl-cache.ts";

/** Not built yet: replaced by the implementation. */
export function sqlTtlCache(_ctx: SqlContext): TtlCache {
  throw new Error("sqlTtlCache is not built yet");
}
