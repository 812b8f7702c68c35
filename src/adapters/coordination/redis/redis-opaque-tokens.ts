import type { RedisContext } from "../coordination-context.ts";
import type { OpaqueTokens } from "../../../engine/coordination/opaque-tokens.ts";

/** Not built yet: replaced by the implementation. */
export function redisOpaqueTokens(_ctx: RedisContext): OpaqueTokens {
  throw new Error("redisOpaqueTokens is not built yet");
}
