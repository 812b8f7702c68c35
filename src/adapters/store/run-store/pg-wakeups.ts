/**
 * PostgreSQL LISTEN on the runs channel: the run store NOTIFYs it in the
 * transaction that makes a run runnable (start, signal, cancel), so every
 * worker on the database claims at once instead of at its next poll. One
 * dedicated connection per worker (../pg-listen.ts).
 *
 * When that connection drops, the worker's poll (every 500 ms) still finds
 * the work, and the listener reconnects with backoff (250 ms after the drop,
 * doubling up to 10 s). Once listening again it wakes the worker, for what
 * became runnable while nobody listened.
 */
import type { Wakeups } from "../../../engine/durable/wakeups-port.ts";
import { pgListen } from "../pg-listen.ts";
import { RUNS_CHANNEL } from "./sql-run-store.ts";

export function pgWakeups(url: string): Wakeups {
  return {
    subscribe: (onWake) =>
      pgListen(url, RUNS_CHANNEL, { onNotify: () => onWake(), onListening: () => onWake() }),
  };
}
