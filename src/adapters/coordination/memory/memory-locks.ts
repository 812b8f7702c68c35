import type { MemoryContext } from "../coordination-context.ts";
import type { Locks } from "../../../engine/coordination/locks.ts";

/** Not built yet: replaced by the implementation. */
export function memoryLocks(_ctx: MemoryContext): Locks {
  throw new Error("memoryLocks is not built yet");
}
