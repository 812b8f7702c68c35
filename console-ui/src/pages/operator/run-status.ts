/** The run statuses as the operator pages list and test them (the type is the wire's). */
import type { RunStatus } from "../../wire.ts";

/** Every status, in the filter's order; `satisfies` plus the check below keep it complete. */
export const RUN_STATUSES = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "quarantined",
] as const satisfies readonly RunStatus[];

// A status the wire adds and this list lacks fails here.
type Missing = Exclude<RunStatus, (typeof RUN_STATUSES)[number]>;
const complete: [Missing] extends [never] ? true : Missing = true;
void complete;

const FINAL: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);

export const isFinal = (s: RunStatus): boolean => FINAL.has(s);
