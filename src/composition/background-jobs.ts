/**
 * The singleton background jobs every node starts (createTaskflow, `taskflow
 * worker`): the coordination's cleanups, each on one node at a time, and —
 * on nodes with the definition cache — the reaper of orphaned fences, plus
 * this node's owner heartbeat (every node beats; it is not a singleton).
 * Failures are reported, rate-limited, and never stop the node.
 */
import { coordinationCleanupJobs } from "../engine/coordination/cleanup-jobs.ts";
import type { Coordination } from "../engine/coordination/coordination-port.ts";
import { startSingletonJobs, type SingletonJobs } from "../engine/coordination/singleton-jobs.ts";
import type { CacheLedger } from "../engine/definition-cache/cache-ledger-port.ts";
import type { CacheWarnLog } from "../engine/definition-cache/cache-provider-port.ts";
import { FENCE_REAPER_JOB, fenceReaperJob } from "../engine/definition-cache/fence-reaper.ts";
import { startOwnerHeartbeat } from "../engine/definition-cache/owner-heartbeat.ts";

export type JobErrorReporter = (job: string, error: Error, suppressed: number) => void;

/** What the definition cache's jobs need: the ledger, this node's owner id, the fence max age. */
export interface DefinitionCacheJobs {
  readonly ledger: CacheLedger;
  readonly owner: string;
  /** WF_DEFINITION_FENCE_MAX_AGE. */
  readonly fenceMaxAgeMs: number;
  readonly log: CacheWarnLog;
}

export function startBackgroundJobs(
  coordination: Coordination,
  onError: JobErrorReporter,
  definitionCache?: DefinitionCacheJobs,
): SingletonJobs {
  const heartbeat =
    definitionCache &&
    startOwnerHeartbeat({
      ledger: definitionCache.ledger,
      owner: definitionCache.owner,
      onError: (e, suppressed) => onError(`${FENCE_REAPER_JOB}:heartbeat`, e, suppressed),
    });
  const reaper = definitionCache
    ? [
        fenceReaperJob({
          ledger: definitionCache.ledger,
          maxAgeMs: definitionCache.fenceMaxAgeMs,
          log: definitionCache.log,
        }),
      ]
    : [];
  const jobs = startSingletonJobs({
    locks: coordination.locks,
    jobs: [...coordinationCleanupJobs(coordination), ...reaper],
    onError,
  });
  let stopping: Promise<void> | undefined;
  const stop = async () => {
    await jobs.stop();
    await heartbeat?.stop();
  };
  return { stop: () => (stopping ??= stop()) };
}
