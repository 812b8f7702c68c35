/**
 * TaskFlow nodes (createTaskflow, in this process) whose coordination is one
 * of the five backends, for the HTTP tests of shared rate limits and
 * idempotency keys. Every node of one set shares the database and the key
 * prefix, so on sql and redis they are the "nodes" of one deployment; on
 * memory each node is alone (one node is all those tests use).
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { loadConfig } from "../../../src/config/load-config.ts";
import type { ConfigOverrides } from "../../../src/config/config.ts";
import { createTaskflow, type Taskflow } from "../../../src/composition/create-taskflow.ts";
import {
  deleteRedisPrefix,
  REDIS_TEST_URL,
  type CoordinationBackendName,
} from "../../coordination/support/coordination-backends.ts";
import { createTestDatabase } from "../../support/backends.ts";

export const KEY = "idem-key-1-0123456789abcdefghijkl";
export const KEY2 = "idem-key-2-0123456789abcdefghijkl";

export interface NodeSet {
  /** Starts another node on the same database and key prefix. */
  node(options?: { logger?: Logger; overrides?: ConfigOverrides }): Promise<Taskflow>;
  /** Closes every node, drops the database, deletes the Redis keys. */
  close(): Promise<void>;
}

export async function coordinatedNodes(
  backend: CoordinationBackendName,
  overrides: ConfigOverrides = {},
): Promise<NodeSet> {
  const onSql = backend === "sqlite" || backend === "postgres" || backend === "mysql";
  const db = await createTestDatabase({ name: onSql ? backend : "sqlite" });
  const keyPrefix = `tftest:${randomBytes(6).toString("hex")}:`;
  const base: ConfigOverrides = {
    databaseUrl: db.url,
    apiKeys: [KEY, KEY2],
    logLevel: "silent",
    keyPrefix,
    // Not what these tests measure; under-pressure reads a loop blocked for its whole 1 s sample
    // (migrations on a loaded machine) as "Infinity ms behind" and sheds the next requests.
    maxEventLoopDelay: 0,
    coordination: onSql ? "sql" : backend,
    ...(backend === "redis" ? { redisUrl: REDIS_TEST_URL } : {}),
    ...overrides,
  };
  const nodes: Taskflow[] = [];
  return {
    async node(options = {}) {
      const config = loadConfig({ env: {}, overrides: { ...base, ...options.overrides } });
      const tf = await createTaskflow(config, { logger: options.logger });
      nodes.push(tf);
      return tf;
    },
    async close() {
      await Promise.all(nodes.map((n) => n.close()));
      if (backend === "redis") await deleteRedisPrefix(keyPrefix);
      await db.drop();
    },
  };
}
