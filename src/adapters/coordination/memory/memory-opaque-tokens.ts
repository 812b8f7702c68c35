import type { MemoryContext } from "../coordination-context.ts";
import type { OpaqueTokens } from "../../../engine/coordination/opaque-tokens.ts";

/** Not built yet: replaced by the implementation. */
export function memoryOpaqueTokens(_ctx: MemoryContext): OpaqueTokens {
  throw new Error("memoryOpaqueTokens is not built yet");
}
