/**
 * Every node that may open fences says it is alive: it beats its owner id
 * (ledgerOwner()) into the ledger every HEARTBEAT_INTERVAL_MS. The reaper
 * (fence-reaper.ts) completes the fences of an owner that has been silent for
 * OWNER_STALE_MS: that process is gone (kill -9, a lost host), and its fence
 * would otherwise keep every node off the cache until an operator came.
 *
 * The numbers: a beat is one upsert of one row, so every 2 s costs each node
 * half a statement per second. Three intervals of silence (6 s) before an
 * owner counts as gone let two beats in a row be lost or late (a GC pause, a
 * slow database, a clock step of a second or two between nodes) without a
 * live writer's fence being completed under it. A dead writer's scope is
 * then off the cache for about 6–8 s (silence plus the reaper's interval),
 * instead of until an operator notices.
 *
 * Beats run one after another (never overlapping) and never keep the process
 * alive. A failing beat is reported (at most once per ERROR_INTERVAL_MS) and
 * the next one tries again: a node whose beats fail for 6 s looks gone, and
 * its fences may be completed; the cost is explained in fence-reaper.ts.
 */
import type { CacheLedger } from "./cache-ledger-port.ts";

export const HEARTBEAT_INTERVAL_MS = 2_000;
export const OWNER_STALE_MS = 3 * HEARTBEAT_INTERVAL_MS;
const ERROR_INTERVAL_MS = 60_000;

export interface OwnerHeartbeatOptions {
  readonly ledger: Pick<CacheLedger, "beat">;
  /** host/pid/boot id: the owner written into this node's fences. */
  readonly owner: string;
  /** Default HEARTBEAT_INTERVAL_MS; tests shorten it. */
  readonly intervalMs?: number | undefined;
  /** A failed beat, at most once per minute, with how many were held back. */
  readonly onError: (error: Error, suppressed: number) => void;
}

export interface OwnerHeartbeat {
  /** Stops beating; waits for a beat in flight. Safe to call twice. */
  stop(): Promise<void>;
}

/** Beats now (not awaited; the composition root beats once before it serves) and every interval. */
export function startOwnerHeartbeat(o: OwnerHeartbeatOptions): OwnerHeartbeat {
  const intervalMs = o.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  let lastReport = -Infinity;
  let suppressed = 0;

  const report = (e: unknown) => {
    const now = Date.now();
    if (now - lastReport < ERROR_INTERVAL_MS) {
      suppressed++;
      return;
    }
    const held = suppressed;
    lastReport = now;
    suppressed = 0;
    try {
      o.onError(e instanceof Error ? e : new Error(String(e)), held);
    } catch {
      // A failing reporter must not stop the heartbeat.
    }
  };

  const tick = () => {
    inFlight = o.ledger
      .beat(o.owner)
      .catch(report)
      .finally(() => {
        inFlight = undefined;
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref();
      });
  };
  tick();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
