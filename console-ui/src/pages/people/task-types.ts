/** The engine's JSON objects the people pages read (docs/api.md, "JSON objects"). */

export interface Assignee {
  kind: "user" | "group";
  id: string;
}

export type TaskStatus = "open" | "claimed" | "done" | "cancelled";

export interface Task {
  id: string;
  instanceId: string;
  rootInstanceId: string;
  definitionKey: string;
  assignee: Assignee;
  assignedBy: string | null;
  status: TaskStatus;
  claimedBy: string | null;
  claimedAt: string | null;
  completedBy: string | null;
  completedAt: string | null;
  vars: Record<string, unknown> | null;
  createdAt: string;
}

export interface Instance {
  id: string;
  kind: "process" | "referral";
  definitionKey: string;
  parentInstanceId: string | null;
  rootInstanceId: string;
  status: "running" | "completed";
  processState: "notStarted" | "open" | "closed" | null;
  vars: Record<string, unknown> | null;
  startedBy: string | null;
  createdAt: string;
  completedAt: string | null;
  joinedAt: string | null;
  tasks?: Task[];
  children?: Instance[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
