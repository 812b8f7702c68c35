/**
 * The revision signals the contract suite runs unchanged: PostgreSQL
 * LISTEN/NOTIFY (a fresh database per test: NOTIFY reaches only the sessions
 * of its database), Redis pub/sub (a fresh channel prefix per test) and the
 * poll-only signal. Each backend opens any number of signals on one channel
 * ("nodes" in this process), one pointed at a server that is not there, and
 * can cut the listeners' connections the way a network or a restart would.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pg from "pg";
import { connectRedis } from "../../../src/adapters/coordination/open-coordination.ts";
import { pgRevisionSignal } from "../../../src/adapters/definition-cache/pg-revision-signal.ts";
import { pollOnlyRevisionSignal } from "../../../src/adapters/definition-cache/poll-only-revision-signal.ts";
import {
  redisRevisionSignal,
  revisionChannel,
  subscriberName,
} from "../../../src/adapters/definition-cache/redis-revision-signal.ts";
import { openDatabase, type Database } from "../../../src/adapters/store/open-database.ts";
import type { RevisionSignal } from "../../../src/engine/definition-cache/revision-signal-port.ts";
import {
  coordinationTestOptions,
  REDIS_TEST_URL,
} from "../../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase } from "../../support/backends.ts";
import { startFaultProxy, type FaultProxy } from "../../support/fault-proxy.ts";
import { recordingLog, type Warning } from "./cache-providers.ts";

export type SignalName = "postgres" | "redis" | "poll";
export const signalNames: readonly SignalName[] = ["postgres", "redis", "poll"];

/** A closed port on this machine: a dial is refused at once. */
const NOBODY_PORT = 1;

export interface SignalBackend {
  /** Whether publishes reach other nodes (false: the poll-only signal). */
  readonly pushes: boolean;
  readonly warnings: Warning[];
  /** Another node's signal on the same channel; closed by close() if the test did not. */
  open(): RevisionSignal;
  /** A signal whose server cannot be reached (a refused port). */
  openUnreachable(): RevisionSignal;
  /** Cuts the listening connections from the server's side; null when there are none. */
  cut: (() => Promise<void>) | null;
  /** A signal whose every connection goes through a fault proxy; null when it has none. */
  openBehindProxy: (() => Promise<{ signal: RevisionSignal; proxy: FaultProxy }>) | null;
  close(): Promise<void>;
}

/** node:test options: skip outside CI when the server is down; throw in CI. */
export function signalTestOptions(name: SignalName): Promise<{ skip?: string }> {
  switch (name) {
    case "postgres":
      return backendTestOptions({ name: "postgres" });
    case "redis":
      return coordinationTestOptions("redis");
    case "poll":
      return Promise.resolve({});
  }
}

export async function openSignalBackend(name: SignalName): Promise<SignalBackend> {
  switch (name) {
    case "postgres":
      return openPostgres();
    case "redis":
      return Promise.resolve(openRedis());
    case "poll":
      return Promise.resolve(openPoll());
  }
}

function tracked() {
  const log = recordingLog();
  const opened: RevisionSignal[] = [];
  const track = (s: RevisionSignal) => {
    opened.push(s);
    return s;
  };
  const closeAll = () => Promise.all(opened.map((s) => s.close()));
  return { log, track, closeAll };
}

async function openPostgres(): Promise<SignalBackend> {
  const test = await createTestDatabase({ name: "postgres" });
  const databases: Database[] = [];
  const database = openDatabase(test.url, { poolSize: 2 });
  databases.push(database);
  const { log, track, closeAll } = tracked();
  const proxies: FaultProxy[] = [];
  const unreachableUrl = (() => {
    const u = new URL(test.url);
    u.port = String(NOBODY_PORT);
    return u.toString();
  })();
  return {
    pushes: true,
    warnings: log.warnings,
    open: () =>
      track(
        pgRevisionSignal({
          url: test.url,
          db: database.coordinationContext.db,
          log,
        }),
      ),
    openUnreachable() {
      const nowhere = openDatabase(unreachableUrl, { poolSize: 1 });
      databases.push(nowhere);
      return track(
        pgRevisionSignal({ url: unreachableUrl, db: nowhere.coordinationContext.db, log }),
      );
    },
    async cut() {
      const admin = new pg.Client({ connectionString: test.url });
      await admin.connect();
      try {
        await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()
              and query ilike 'LISTEN %'`,
        );
      } finally {
        await admin.end();
      }
    },
    async openBehindProxy() {
      const u = new URL(test.url);
      const proxy = await startFaultProxy(u.hostname, Number(u.port || 5432));
      proxies.push(proxy);
      const url = proxy.urlFor(test.url);
      const viaProxy = openDatabase(url, { poolSize: 1 });
      databases.push(viaProxy);
      const signal = track(pgRevisionSignal({ url, db: viaProxy.coordinationContext.db, log }));
      return { signal, proxy };
    },
    async close() {
      await closeAll();
      for (const d of databases) await d.close().catch(() => undefined);
      for (const p of proxies) await p.close();
      await test.drop();
    },
  };
}

function openRedis(): SignalBackend {
  const channel = revisionChannel(`tftest:defs:${randomBytes(6).toString("hex")}:`, "signal-test");
  const { log, track, closeAll } = tracked();
  const connect = (redisUrl: string) =>
    connectRedis({ kind: "redis", keyPrefix: "", redisUrl, redisSentinel: null });
  const proxies: FaultProxy[] = [];
  return {
    pushes: true,
    warnings: log.warnings,
    open: () =>
      track(
        redisRevisionSignal({
          redis: connect(REDIS_TEST_URL),
          ownsConnection: true,
          channel,
          log,
        }),
      ),
    openUnreachable: () =>
      track(
        redisRevisionSignal({
          redis: connect(`redis://127.0.0.1:${NOBODY_PORT}`),
          ownsConnection: true,
          channel,
          log,
        }),
      ),
    async cut() {
      const admin = new Redis(REDIS_TEST_URL);
      try {
        const list = (await admin.client("LIST")) as string;
        for (const line of list.split("\n")) {
          const fields = new Map(line.split(" ").map((kv) => kv.split("=", 2) as [string, string]));
          if (fields.get("name") === subscriberName(channel)) {
            await admin.client("KILL", "ID", fields.get("id")!);
          }
        }
      } finally {
        admin.disconnect();
      }
    },
    async openBehindProxy() {
      const u = new URL(REDIS_TEST_URL);
      const proxy = await startFaultProxy(u.hostname, Number(u.port || 6379));
      proxies.push(proxy);
      const signal = track(
        redisRevisionSignal({
          redis: connect(proxy.urlFor(REDIS_TEST_URL)),
          ownsConnection: true,
          channel,
          log,
        }),
      );
      return { signal, proxy };
    },
    close: async () => {
      await closeAll();
      for (const p of proxies) await p.close();
    },
  };
}

function openPoll(): SignalBackend {
  const { log, track, closeAll } = tracked();
  return {
    pushes: false,
    warnings: log.warnings,
    open: () => track(pollOnlyRevisionSignal()),
    openUnreachable: () => track(pollOnlyRevisionSignal()),
    cut: null,
    openBehindProxy: null,
    close: async () => {
      await closeAll();
    },
  };
}
