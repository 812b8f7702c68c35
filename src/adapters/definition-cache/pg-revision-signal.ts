/**
 * The bounded mode's revision signal on PostgreSQL: LISTEN on a dedicated
 * connection per node (../store/pg-listen.ts: reconnects with backoff, and
 * reports each time it listens again), NOTIFY over the store's own pool.
 *
 * The channel is deployment-wide and names nothing of a tenant: NOTIFY
 * reaches the sessions of the same database only, which are the nodes that
 * share this ledger. The payload is the sending signal's own id, so a node
 * skips its own messages (it refreshed before it published).
 *
 * A NOTIFY that fails (the database is away), or a LISTEN connection lost,
 * is a warning, at most one per kind per 10 s, never a rejection: the poll
 * still finds the change.
 */
import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { CacheWarnLog } from "../../engine/definition-cache/cache-provider-port.ts";
import type { RevisionSignal } from "../../engine/definition-cache/revision-signal-port.ts";
import { pgListen, type Unlisten } from "../store/pg-listen.ts";
import { warnLimiter } from "./warn-limiter.ts";

export const CACHE_CHANNEL = "taskflow_cache";

export interface PgRevisionSignalOptions {
  /** DATABASE_URL: the LISTEN connection's. */
  url: string;
  /** The store's pool, for NOTIFY. */
  // The signal sends one statement that names no table.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  log: CacheWarnLog;
  /** Another channel (tests); CACHE_CHANNEL by default. */
  channel?: string | undefined;
}

export function pgRevisionSignal(options: PgRevisionSignalOptions): RevisionSignal {
  const channel = options.channel ?? CACHE_CHANNEL;
  const self = randomUUID();
  const warn = warnLimiter(options.log);
  let unlisten: Unlisten | undefined;
  let closed = false;

  return {
    kind: "postgres",

    async start(onMoved) {
      if (closed || unlisten !== undefined) return;
      const stop = await pgListen(options.url, channel, {
        onNotify: (payload) => {
          if (!closed && payload !== self) onMoved();
        },
        onListening: () => {
          if (!closed) onMoved();
        },
        onLost: (e) => {
          if (closed) return;
          warn(
            "listen",
            { cause: e instanceof Error ? e.message : String(e) },
            "definition cache: the LISTEN connection is lost; reconnecting, other nodes' changes are seen at the poll",
          );
        },
      });
      if (closed) await stop();
      else unlisten = stop;
    },

    async publish() {
      try {
        await sql`select pg_notify(${channel}, ${self})`.execute(options.db);
      } catch (e) {
        warn(
          "notify",
          { cause: (e as Error).message },
          "definition cache: NOTIFY failed; other nodes see the change at their poll",
        );
      }
    },

    async close() {
      closed = true;
      const stop = unlisten;
      unlisten = undefined;
      await stop?.();
    },
  };
}
