/**
 * PostgreSQL LISTEN on the runs channel: the run store NOTIFYs it in the
 * transaction that makes a run runnable (start, signal, cancel), so every
 * worker on the database claims at once instead of at its next poll. One
 * dedicated connection per worker.
 *
 * When that connection drops, the worker's poll (every 500 ms) still finds
 * the work, and the listener reconnects with backoff: 250 ms after the drop,
 * doubling per failed attempt up to 10 s, so a database that is down for
 * minutes sees one attempt per 10 s per node. Once listening again it wakes
 * the worker, for what became runnable while nobody listened.
 *
 * Exactly one connection at a time: a drop can be reported twice (the LISTEN
 * in flight fails and the client emits 'error'), so only the current client's
 * first failure schedules the one reconnect.
 */
import pg from "pg";
import type { Wakeups } from "../../../engine/durable/worker.ts";
import { RUNS_CHANNEL } from "./sql-run-store.ts";

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/** As the store's pool: a black-holed host fails the attempt after 10 s, then it retries. */
const CONNECT_TIMEOUT_MS = 10_000;

export function pgWakeups(url: string): Wakeups {
  return {
    async subscribe(onWake) {
      let current: pg.Client | undefined;
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      let failures = 0;

      const retryLater = () => {
        if (closed) return;
        const delay = Math.min(FIRST_RETRY_MS * 2 ** failures, MAX_RETRY_MS);
        failures++;
        timer = setTimeout(() => void connect(), delay);
      };

      /** The one place a client is given up: only the first report of the current client counts. */
      const lost = (c: pg.Client) => {
        if (c !== current) return;
        current = undefined;
        void c.end().catch(() => undefined);
        retryLater();
      };

      const connect = async (): Promise<void> => {
        const c = new pg.Client({
          connectionString: url,
          connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        });
        current = c;
        c.on("notification", () => onWake());
        c.on("error", () => lost(c));
        try {
          await c.connect();
          await c.query(`LISTEN ${RUNS_CHANNEL}`);
        } catch {
          // A connect that failed after unsubscribe (or was replaced) is only closed.
          if (c === current) lost(c);
          else await c.end().catch(() => undefined);
          return;
        }
        if (closed || c !== current) {
          await c.end().catch(() => undefined);
          return;
        }
        failures = 0;
        onWake(); // anything that became runnable while we were not listening
      };

      await connect();
      return async () => {
        closed = true;
        clearTimeout(timer);
        const c = current;
        current = undefined;
        await c?.end().catch(() => undefined);
      };
    },
  };
}
