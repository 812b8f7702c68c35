/**
 * The reaper of orphaned fences: a singleton job (one node at a time, under
 * the lock `job:definition-fence-reaper`) that completes, through the same
 * path as an operator's completeOrphan (so the scope's revision moves), every
 * incomplete fence that
 *
 * - belongs to an owner silent for `staleOwnerMs` (default 3 heartbeats,
 *   6 s): the writer is gone — killed, its host lost — and will never
 *   complete it; or
 * - is older than `maxAgeMs` (WF_DEFINITION_FENCE_MAX_AGE, default 60 s; 0:
 *   never by age): the owner is alive, but its write's outcome was in doubt
 *   (the database went away during it), so it left the fence open. 60 s is
 *   far beyond any write under a fence (a publish begins its fence after it
 *   holds the definition's lock, so only its few statements count) and
 *   beyond the time a database takes to settle a transaction whose
 *   connection died; after that the store says what happened, and
 *   completing the fence lets readers cache it again.
 *
 * A fence whose owner beats and which is younger than the max age is never
 * touched. The owner's last sign of life is the later of its last beat and
 * the fence's own creation (the owner wrote the fence, so it was alive then):
 * a process resumed after a long pause that opens a fence before its next
 * beat is not taken for dead, nor is a fence of an owner that has no
 * heartbeat row yet (it is judged by its age alone).
 *
 * What completing a live writer's fence too early costs (its clock runs 6 s
 * behind the reaper's, or it was paused past the stale time mid-write):
 * readers go back to the cache while the write is in flight, and between the
 * write's commit and the writer's own completion (milliseconds) a reader may
 * still be served the data from before it. The writer's completion always
 * inserts a fresh completed row, so the revision moves again then and every
 * copy cached meanwhile becomes unreachable.
 *
 * Completion is idempotent (a conditional update decides), so two reapers —
 * a lock holder whose lease ran out beside the next holder — complete each
 * fence once. After the fences, the heartbeat rows of owners that are silent
 * and own no fence are deleted (every restart leaves one behind), and the
 * ledger is pruned.
 */
import { isTaskflowError } from "../../domain/errors.ts";
import type { SingletonJob } from "../coordination/singleton-jobs.ts";
import type { CacheLedger, OwnedFence } from "./cache-ledger-port.ts";
import type { CacheWarnLog } from "./cache-provider-port.ts";
import { HEARTBEAT_INTERVAL_MS, OWNER_STALE_MS } from "./owner-heartbeat.ts";

export const FENCE_REAPER_JOB = "definition-fence-reaper";

/** Why a fence is completed by the reaper. */
export type ReapReason = "owner-gone" | "max-age";

export interface ReapRule {
  /** A fence this old (ms) is completed even when its owner beats; 0: never by age. */
  readonly maxAgeMs: number;
  /** An owner silent this long (ms) is gone. */
  readonly staleOwnerMs: number;
}

export interface FenceReaperOptions {
  readonly ledger: Pick<
    CacheLedger,
    "listOwnedFences" | "completeOrphan" | "forgetOwners" | "prune"
  >;
  /** WF_DEFINITION_FENCE_MAX_AGE. */
  readonly maxAgeMs: number;
  /** Default OWNER_STALE_MS; tests shorten it. */
  readonly staleOwnerMs?: number | undefined;
  readonly log: CacheWarnLog;
}

export interface ReapedFence {
  readonly fence: OwnedFence;
  readonly reason: ReapReason;
}

/** Why the rule completes the fence, or null when it must be left alone. */
export function reapReason(fence: OwnedFence, rule: ReapRule): ReapReason | null {
  const silentMs =
    fence.ownerSilentMs === null ? fence.ageMs : Math.min(fence.ownerSilentMs, fence.ageMs);
  if (silentMs >= rule.staleOwnerMs) return "owner-gone";
  if (rule.maxAgeMs > 0 && fence.ageMs >= rule.maxAgeMs) return "max-age";
  return null;
}

/**
 * One round: completes every fence the rule picks (oldest first, until the
 * signal aborts), then forgets silent owners without fences. Resolves with
 * the fences this call completed (not those another reaper completed first).
 */
export async function reapFences(
  o: FenceReaperOptions,
  signal: AbortSignal = new AbortController().signal,
): Promise<ReapedFence[]> {
  const rule: ReapRule = {
    maxAgeMs: o.maxAgeMs,
    staleOwnerMs: o.staleOwnerMs ?? OWNER_STALE_MS,
  };
  const reaped: ReapedFence[] = [];
  for (const fence of await o.ledger.listOwnedFences()) {
    if (signal.aborted) return reaped;
    const reason = reapReason(fence, rule);
    if (reason === null) continue;
    if (!(await completedHere(o, fence))) continue; // its writer, an operator or another reaper was first
    reaped.push({ fence, reason });
    logReaped(o.log, fence, reason);
  }
  if (signal.aborted) return reaped;
  await o.ledger.forgetOwners(rule.staleOwnerMs);
  // Every completion adds a row; the round keeps the ledger at about one row
  // per scope plus the fences in flight (prune is safe beside other nodes).
  await o.ledger.prune();
  return reaped;
}

/**
 * Completes the fence; false when someone else already had. Another reaper may
 * have completed it and pruned its row since the list was read: the ledger
 * then no longer knows the id (NotFound), which means the same.
 */
async function completedHere(o: FenceReaperOptions, fence: OwnedFence): Promise<boolean> {
  try {
    return (await o.ledger.completeOrphan(fence.mutationId)).completed;
  } catch (e) {
    if (isTaskflowError(e) && e.code === "NotFound") return false;
    throw e;
  }
}

function logReaped(log: CacheWarnLog, fence: OwnedFence, reason: ReapReason): void {
  log.warn(
    {
      mutationId: fence.mutationId,
      scope: fence.scope,
      owner: fence.owner,
      ageMs: fence.ageMs,
      ownerSilentMs: fence.ownerSilentMs,
      reason,
    },
    reason === "owner-gone"
      ? "definition cache: completed an orphaned fence; its owner stopped beating"
      : "definition cache: completed a fence older than WF_DEFINITION_FENCE_MAX_AGE",
  );
}

/**
 * The reaper as a singleton job. It runs every heartbeat interval: a dead
 * writer's scope is then back on the cache within stale time + one interval.
 */
export function fenceReaperJob(
  o: FenceReaperOptions & { intervalMs?: number | undefined },
): SingletonJob {
  return {
    name: FENCE_REAPER_JOB,
    intervalMs: o.intervalMs ?? HEARTBEAT_INTERVAL_MS,
    run: (signal) => reapFences(o, signal),
  };
}
