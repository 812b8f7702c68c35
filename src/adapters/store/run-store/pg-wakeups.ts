/**
 * PostgreSQL LISTEN on the runs channel: the run store NOTIFYs it in the
 * transaction that makes a run runnable (start, signal, cancel), so every
 * worker on the database claims at once instead of at its next poll. One
 * dedicated connection per worker; if it drops, polling still finds the work
 * and the listener reconnects.
 */
import pg from "pg";
import type { Wakeups } from "../../../engine/durable/worker.ts";
import { RUNS_CHANNEL } from "./sql-run-store.ts";

const RECONNECT_MS = 1_000;

export function pgWakeups(url: string): Wakeups {
  return {
    async subscribe(onWake) {
      let client: pg.Client | undefined;
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
        c.on("notification", () => onWake());
        c.on("error", () => {
          client = undefined;
          void c.end().catch(() => undefined);
          if (!closed) timer = setTimeout(() => void connect().catch(retry), RECONNECT_MS);
        });
        await c.connect();
        await c.query(`LISTEN ${RUNS_CHANNEL}`);
        if (closed) {
          await c.end();
          return;
        }
        client = c;
        onWake(); // anything that became runnable while we were not listening
      };
      const retry = () => {
        if (!closed) timer = setTimeout(() => void connect().catch(retry), RECONNECT_MS);
      };
      await connect().catch(retry);
      return async () => {
        closed = true;
        clearTimeout(timer);
        await client?.end().catch(() => undefined);
      };
    },
  };
}
