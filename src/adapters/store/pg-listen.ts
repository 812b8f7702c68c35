/**
 * PostgreSQL LISTEN on one channel, on a dedicated connection that comes back
 * by itself: what the run store's wake-ups (run-store/pg-wakeups.ts) and the
 * definition cache's revision signal
 * (../definition-cache/pg-revision-signal.ts) are built on.
 *
 * When the connection drops, the listener reconnects with backoff: 250 ms
 * after the drop, doubling per failed attempt up to 10 s, so a database that
 * is down for minutes sees one attempt per 10 s per listener. Every time it is
 * listening again (the first time too) it calls onListening: whatever was
 * notified while nobody listened is lost, and the caller catches up.
 *
 * Exactly one connection at a time: a drop can be reported twice (the LISTEN
 * in flight fails and the client emits 'error'), so only the current client's
 * first failure schedules the one reconnect.
 */
import type pg from "pg";
import { pgDriver } from "../drivers.ts";

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 10_000;
/** As the store's pool: a black-holed host fails the attempt after 10 s, then it retries. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface PgListenHandlers {
  /** A NOTIFY on the channel; `payload` as sent ("" when none). */
  onNotify(payload: string): void;
  /** Listening (again): after the first connection and after every reconnection. */
  onListening(): void;
  /** The connection failed or was lost; a reconnection follows (optional: for a warning). */
  onLost?(cause: unknown): void;
}

/** Stops listening and closes the connection; no handler is called after it resolves. */
export type Unlisten = () => Promise<void>;

/**
 * Starts listening; resolves once the first attempt succeeded or failed (a
 * failed one is retried in the background, never a rejection).
 */
export async function pgListen(
  url: string,
  channel: string,
  handlers: PgListenHandlers,
): Promise<Unlisten> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) {
    throw new Error(`${JSON.stringify(channel)} is not a channel name (lower-case identifier)`);
  }
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
  const lost = (c: pg.Client, cause: unknown) => {
    if (c !== current) return;
    current = undefined;
    handlers.onLost?.(cause);
    void c.end().catch(() => undefined);
    retryLater();
  };

  const connect = async (): Promise<void> => {
    const c = new (pgDriver().Client)({
      connectionString: url,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    current = c;
    c.on("notification", (n) => {
      if (!closed && c === current && n.channel === channel) handlers.onNotify(n.payload ?? "");
    });
    c.on("error", (e) => lost(c, e));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (e) {
      // A connect that failed after unlisten (or was replaced) is only closed.
      if (c === current) lost(c, e);
      else await c.end().catch(() => undefined);
      return;
    }
    if (closed || c !== current) {
      await c.end().catch(() => undefined);
      return;
    }
    failures = 0;
    handlers.onListening();
  };

  await connect();
  return async () => {
    closed = true;
    clearTimeout(timer);
    const c = current;
    current = undefined;
    await c?.end().catch(() => undefined);
  };
}
