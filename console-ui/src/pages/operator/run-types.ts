/** The engine's durable-run shapes as /v1/runs answers them (docs/api.md, Run and History event). */

export const RUN_STATUSES = [
  "pending",
  "running",
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "quarantined",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const FINAL: ReadonlySet<RunStatus> = new Set(["completed", "failed", "cancelled"]);

export const isFinal = (s: RunStatus): boolean => FINAL.has(s);

/** A failure as the engine records it; `stack` is null unless the server exposes stacks. */
export interface Failure {
  name: string;
  message: string;
  stack?: string | null;
  nonRetryable?: boolean;
  type?: string;
}

export interface Run {
  runId: string;
  workflow: string;
  status: RunStatus;
  input: unknown;
  output: unknown;
  error: Failure | null;
  rootInstanceId: string | null;
  parentRunId: string | null;
  startedBy: string | null;
  cancelRequested: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** One history event; `data` differs by type, so the timeline reads it field by field. */
export interface RunEvent {
  seq: number;
  type: string;
  name: string | null;
  at: string;
  data: Record<string, unknown> | null;
}

/** An incomplete cache fence (GET /v1/admin/cache/mutations). */
export interface Fence {
  id: number;
  mutationId: string;
  scope: string;
  owner: string;
  createdAt: string;
  ageMs: number;
}
