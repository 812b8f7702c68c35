/**
 * What the API acknowledged during a scenario (a 2xx answer), to be read back
 * afterwards. A request whose answer never came (timeout, reset, 5xx) is not
 * here: its outcome is unknown, and the load retried it.
 */
export interface AckedCompletion {
  taskId: string;
  by: string;
  vars: Record<string, unknown>;
}

export interface Ledger {
  /** Root instances made by POST /v1/processes. */
  processes: string[];
  /** Referrals made by POST /v1/assignments, with the tasks the answer named. */
  assignments: { instanceId: string; taskIds: string[] }[];
  /** POST /v1/tasks/{id}/complete answers (task cycles and the runs' human tasks). */
  completions: AckedCompletion[];
  /** Joins the completions' answers reported: the join's referral and its task. */
  joins: { instanceId: string; taskId: string }[];
  /** Runs started (201, or 200 for an id that existed). */
  runs: { runId: string; n: number }[];
  /** Signals accepted (202). */
  signals: { runId: string; add: number }[];
}

export function newLedger(): Ledger {
  return { processes: [], assignments: [], completions: [], joins: [], runs: [], signals: [] };
}

export function ackedCount(l: Ledger): number {
  return (
    l.processes.length +
    l.assignments.length +
    l.completions.length +
    l.joins.length +
    l.runs.length +
    l.signals.length
  );
}
