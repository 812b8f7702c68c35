/**
 * The singleton background jobs every node starts (createTaskflow, `taskflow
 * worker`): the coordination's cleanups, each on one node at a time.
 * Failures are reported, rate-limited, and never stop the node.
 */
import { coordinationCleanupJobs } from "./engine/coordination/cleanup-jobs.ts";
import type { Coordination } from "./engine/coordination/coordination.ts";
import { startSingletonJobs, type SingletonJobs } from "./engine/coordination/singleton-jobs.ts";

export type JobErrorReporter = (job: string, error: Error, suppressed: number) => void;

export function startBackgroundJobs(
  coordination: Coordination,
  onError: JobErrorReporter,
): SingletonJobs {
  return startSingletonJobs({
    locks: coordination.locks,
    jobs: coordinationCleanupJobs(coordination),
    onError,
  });
}
