import type { SqlContext } from "../coordination-context.ts";
import type { OpaqueTokens } from "../../../engine/coordination/opaque-tokens.ts";

/** Not built yet: replaced by the implementation. */
export function sqlOpaqueTokens(_ctx: SqlContext): OpaqueTokens {
  throw new Error("sqlOpaqueTokens is not built yet");
}
