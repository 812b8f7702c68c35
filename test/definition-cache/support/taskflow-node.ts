/**
 * One TaskFlow node on a fresh SQLite database for the definition cache's
 * wiring tests, called over HTTP with `inject`, plus a redis-server of the
 * test's own whose client count tells which connections are open.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { ConfigOverrides } from "../../../src/config/config.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import {
  createTaskflow,
  type Taskflow,
  type TaskflowOptions,
} from "../../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../../support/backends.ts";
import { freePort } from "../../support/server-process.ts";
import { startOwnRedis, stopOwnRedis } from "./own-redis.ts";

export const API_KEY = "cfg-test-key-0123456789abcdef";

export interface Reply {
  status: number;
  type: string;
  body: Record<string, unknown>;
}

export interface TestNode {
  readonly tf: Taskflow;
  call(method: "GET" | "POST", url: string, body?: object): Promise<Reply>;
  close(): Promise<void>;
}

export const freshCachePrefix = () => `tftest:defs:${randomBytes(6).toString("hex")}:`;

export async function startNode(
  overrides: ConfigOverrides,
  options: TaskflowOptions = {},
): Promise<TestNode> {
  const db = await createTestDatabase({ name: "sqlite" });
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [API_KEY],
      logLevel: "silent",
      rateLimit: false,
      ...overrides,
    },
  });
  let tf: Taskflow;
  try {
    tf = await createTaskflow(config, options);
  } catch (e) {
    await db.drop();
    throw e;
  }
  return {
    tf,
    async call(method, url, body) {
      const r = await tf.server.inject({
        method,
        url,
        headers: { "x-api-key": API_KEY, "x-actor-id": "alice" },
        ...(body === undefined ? {} : { payload: body }),
      });
      return {
        status: r.statusCode,
        type: String(r.headers["content-type"]),
        body: r.json<Record<string, unknown>>(),
      };
    },
    async close() {
      await tf.close();
      await db.drop();
    },
  };
}

export interface OwnRedis {
  readonly url: string;
  /** A connection of the test's own (one of the clients counted). */
  readonly admin: Redis;
  /** Clients connected to this server, the admin included. */
  clients(): Promise<number>;
  stop(): Promise<void>;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const server = await startOwnRedis(port);
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url);
  return {
    url,
    admin,
    async clients() {
      const info = await admin.info("clients");
      return Number(/connected_clients:(\d+)/.exec(info)?.[1] ?? NaN);
    },
    async stop() {
      admin.disconnect();
      await stopOwnRedis(server);
    },
  };
}
