/**
 * Which revision signal a deployment gets (open-consistency.ts) and who owns
 * the Redis connections: PostgreSQL → LISTEN/NOTIFY whatever else is set;
 * otherwise Redis pub/sub when the definition cache or the coordination is on
 * Redis; otherwise the poll alone. A connection the host handed in carries the
 * PUBLISH and stays open after close(); the subscriber is always the signal's
 * own connection, closed with it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { Redis } from "ioredis";
import {
  openConsistency,
  revisionSignalFor,
  type ConsistencyConfig,
  type ConsistencyDatabase,
} from "../../src/adapters/definition-cache/open-consistency.ts";
import {
  revisionChannel,
  subscriberName,
} from "../../src/adapters/definition-cache/redis-revision-signal.ts";
import { dialectFor } from "../../src/adapters/store/dialects/dialect-for.ts";
import type { CacheLedger } from "../../src/engine/definition-cache/cache-ledger-port.ts";
import {
  coordinationTestOptions,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { recordingLog } from "./support/cache-providers.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** The deployment id a node would have read from its database. */
const DEPLOYMENT = randomBytes(16).toString("hex");

const config = (over: Partial<ConsistencyConfig> = {}): ConsistencyConfig => ({
  definitionCacheConsistency: "bounded",
  definitionCachePoll: 1000,
  definitionCache: "memory",
  definitionCachePrefix: `tftest:defs:${randomBytes(6).toString("hex")}:`,
  coordination: "sql",
  redisUrl: REDIS_TEST_URL,
  redisSentinels: [],
  redisSentinelName: null,
  ...over,
});

/** A URL per backend, for its dialect's flags only: a dialect connects at its first query. */
const DIALECT_URLS = {
  postgres: "postgres://nobody@127.0.0.1:1/none",
  mysql: "mysql://nobody@127.0.0.1:1/none",
  sqlite: "sqlite::memory:",
} as const;

/** Nothing of it is touched before start(): selection opens no connection. */
const database = (backend: ConsistencyDatabase["backend"]): ConsistencyDatabase => ({
  backend,
  cacheLedger: {} as CacheLedger,
  deploymentId: () => DEPLOYMENT,
  coordinationContext: {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    db: {} as any,
    dialect: dialectFor(DIALECT_URLS[backend]),
    databaseUrl: "postgres://nobody@127.0.0.1:1/none",
  },
});

async function subscribers(channel: string): Promise<number> {
  const admin = new Redis(REDIS_TEST_URL);
  try {
    const list = (await admin.client("LIST")) as string;
    return list.split("\n").filter((l) => l.includes(` name=${subscriberName(channel)} `)).length;
  } finally {
    admin.disconnect();
  }
}

void describe("revision signal selection", async () => {
  const redis = await coordinationTestOptions("redis");
  const log = recordingLog();

  void it("strict is the strict mode: no signal at all", () => {
    const c = openConsistency(
      config({ definitionCacheConsistency: "strict" }),
      database("postgres"),
      { log },
    );
    assert.equal(c.mode, "strict");
    assert.equal(
      openConsistency(config(), database("sqlite"), { log }).mode,
      "bounded",
      "bounded when asked",
    );
  });

  void it("postgres: LISTEN/NOTIFY, also when Redis is configured", async () => {
    for (const over of [
      {},
      { definitionCache: "redis" as const },
      { coordination: "redis" as const },
    ]) {
      const s = revisionSignalFor(config(over), database("postgres"), { log });
      assert.equal(s.kind, "postgres");
      await s.close();
    }
  });

  void it("mysql and sqlite: Redis pub/sub when the cache or coordination is on Redis", async () => {
    for (const backend of ["mysql", "sqlite"] as const) {
      for (const over of [
        { definitionCache: "redis" as const },
        { coordination: "redis" as const },
      ]) {
        const s = revisionSignalFor(config(over), database(backend), { log });
        assert.equal(s.kind, "redis", `${backend} ${JSON.stringify(over)}`);
        await s.close();
      }
      const poll = revisionSignalFor(config(), database(backend), { log });
      assert.equal(poll.kind, "poll", `${backend} without Redis`);
      await poll.close();
    }
  });

  void it(
    "a host's connection publishes and stays open; the subscriber is the signal's own",
    redis,
    async () => {
      const host = new Redis(REDIS_TEST_URL);
      const listener = new Redis(REDIS_TEST_URL);
      try {
        const c = config({ definitionCache: "redis" });
        const channel = revisionChannel(c.definitionCachePrefix, DEPLOYMENT);
        const heard: string[] = [];
        listener.on("message", (_ch: string, m: string) => heard.push(m));
        await listener.subscribe(channel);
        const signal = revisionSignalFor(c, database("mysql"), { redis: host, log });
        await signal.start(() => undefined);
        assert.equal(await subscribers(channel), 1, "its own subscriber connection");
        const hostId = await host.client("ID");
        await signal.publish();
        for (let i = 0; i < 200 && heard.length === 0; i++) await sleep(5);
        assert.equal(heard.length, 1, "published");
        const admin = new Redis(REDIS_TEST_URL);
        const info = String(await admin.client("LIST", "ID", hostId));
        admin.disconnect();
        assert.match(info, / cmd=publish /, "over the host's connection");
        await signal.close();
        assert.equal(host.status, "ready", "the host's connection is left open");
        assert.equal(await host.ping(), "PONG");
        for (let i = 0; i < 200 && (await subscribers(channel)) > 0; i++) await sleep(5);
        assert.equal(await subscribers(channel), 0, "its subscriber is closed");
      } finally {
        host.disconnect();
        listener.disconnect();
      }
    },
  );
});
