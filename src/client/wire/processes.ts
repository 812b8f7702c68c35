/** Processes and instances as the REST API sends and accepts them (docs/api.md). */
import type { IsoTime, Vars } from "./common.ts";
import type { NextAssignment, Task } from "./tasks.ts";

export interface StartProcessRequest {
  processKey: string;
  name?: string;
  vars?: Vars;
  /** A published version of the definition to run (default: the latest). */
  version?: number;
}

export interface StartedProcess {
  definitionKey: string;
  instanceId: string;
  /** The run of a published definition's process; missing for a plain process. */
  runId?: string;
  /** The definition version that run runs; missing for a plain process. */
  version?: number;
}

export type ProcessState = "notStarted" | "open" | "closed";

export interface Instance {
  id: string;
  kind: "process" | "referral";
  definitionKey: string;
  parentInstanceId: string | null;
  rootInstanceId: string;
  status: "running" | "completed";
  /** For a process: its user-process state; `null` for a referral. */
  processState: ProcessState | null;
  vars: Vars;
  startedBy: string;
  createdAt: IsoTime;
  completedAt: IsoTime | null;
  /** The pending join of a referral, or `null`. */
  onAllCompleted: NextAssignment | null;
  joinedAt: IsoTime | null;
}

/** `GET /v1/instances/{id}`: the instance with its tasks and, recursively, its children. */
export interface InstanceTree extends Instance {
  children: InstanceTree[];
  tasks: Task[];
}
