import type { SqlContext } from "../coordination-context.ts";
import type { Locks } from "../../../engine/coordination/locks.ts";

/** Not built yet: replaced by the implementation. */
export function sqlLocks(_ctx: SqlContext): Locks {
  throw new Error("sqlLocks is not built yet");
}
