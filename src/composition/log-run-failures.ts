/**
 * A run that fails or is lost to an unexpected error says so in the server's
 * log: otherwise a workflow that throws (a ReferenceError in its code, a step
 * out of retries) fails quietly, seen only by whoever reads GET /v1/runs/{id}.
 * One warn line per run that ends failed, with the recorded failure's name and
 * message (never its stack: WF_EXPOSE_ERROR_STACKS decides who sees those).
 */
import type { Run } from "../domain/run.ts";
import type { WorkerOptions } from "../engine/durable/worker.ts";

export interface RunFailureLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The worker's onOutcome: reads the failed run back for its failure (the outcome carries none). */
export function logRunFailures(
  readRun: (tenantId: string, id: string) => Promise<Run>,
  log: () => RunFailureLog | undefined,
): NonNullable<WorkerOptions["onOutcome"]> {
  return (run, outcome) => {
    const fields = { tenantId: run.tenantId, runId: run.id, workflow: run.workflow };
    if (outcome instanceof Error) {
      log()?.warn({ ...fields, cause: outcome.message }, "run execution failed; retried later");
      return;
    }
    if (outcome !== "failed") return;
    readRun(run.tenantId, run.id).then(
      (r) => {
        const error = r.error === null ? {} : { error: r.error.name, cause: r.error.message };
        log()?.warn({ ...fields, ...error }, `run ${run.id} of workflow ${run.workflow} failed`);
      },
      () => log()?.warn(fields, `run ${run.id} of workflow ${run.workflow} failed`),
    );
  };
}
