/**
 * Which workflow names a node without their code accepts for a start: those
 * a worker recorded serving (served-recorder.ts) within SERVED_TTL_MS.
 *
 * Why a window and not "a worker is alive right now": a run is durable, it
 * waits `pending` until a worker claims it. Refusing starts whenever no worker
 * happens to be up (a restart, a deploy, a crash taken over a minute later)
 * would turn every worker restart into client errors. Why not "ever": a name
 * that was renamed or removed from the code (or a typo of a name some old
 * worker once served) must stop being accepted, or its runs would wait for a
 * worker that never comes; after an hour without any worker serving it, the
 * start answers 404 again. The runs list (status=pending) shows what waits.
 */
import type { RunStore, ServedKind } from "./run-store-port.ts";

/** A worker's word counts this long after its last refresh. */
export const SERVED_TTL_MS = 60 * 60_000;
/** How often a worker refreshes its rows: many times per TTL, so a live worker never lapses. */
export const SERVED_REFRESH_MS = 5 * 60_000;
/**
 * How long a node trusts a "served" answer before asking the store again: a
 * start of a remote workflow then costs no extra round trip, and the answer
 * can be late by at most this, against a window of an hour.
 */
const CACHE_MS = 60_000;

export class ServedWorkflows {
  /** kind and name → until when a positive answer holds. Negative answers are not kept: a new worker counts at once. */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly store: Pick<RunStore, "lastServed">,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = SERVED_TTL_MS,
  ) {}

  /** True when a worker recorded serving `name` (a workflow, or a code step) within the TTL. */
  async isServed(name: string, kind: ServedKind = "workflow"): Promise<boolean> {
    const now = this.now();
    const k = `${kind}\u0000${name}`;
    const until = this.known.get(k);
    if (until !== undefined && now < until) return true;
    this.known.delete(k);
    const last = await this.store.lastServed(name, kind);
    if (last === null || last + this.ttlMs <= now) return false;
    this.known.set(k, Math.min(now + CACHE_MS, last + this.ttlMs));
    return true;
  }
}
