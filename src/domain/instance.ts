import type { NextAssignment } from "./assignment.ts";
import type { Vars } from "./vars.ts";

export type InstanceStatus = "running" | "completed";

/** What made the instance: Start (a user process), AssignTo (a referral), or a durable run. */
export type InstanceKind = "process" | "referral";

/**
 * The user-process state of a root instance, kept on the row so the
 * process list is an index range scan, not an EXISTS per row.
 */
export type ProcessState = "notStarted" | "open" | "closed";
export const ProcessStates: readonly ProcessState[] = ["notStarted", "open", "closed"];

export interface Instance {
  id: string;
  tenantId: string;
  kind: InstanceKind;
  definitionId: string;
  definitionKey: string;
  /** The root for a referral; null for a root. */
  parentInstanceId: string | null;
  /** Itself for a root. */
  rootInstanceId: string;
  status: InstanceStatus;
  processState: ProcessState | null;
  vars: Vars;
  startedBy: string;
  createdAt: number;
  completedAt: number | null;
  /** The pending join of a referral: performed once when all its tasks are finished. */
  onAllCompleted: NextAssignment | null;
  /** When the join was performed; the conditional write on it is what makes the join happen once. */
  joinedAt: number | null;
}
