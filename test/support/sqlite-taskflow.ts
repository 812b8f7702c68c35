/**
 * One in-process node on a fresh SQLite database, as most single-node tests
 * start one: an API key, no log, no rate limit (tests send bursts a client
 * never would), and whatever the test sets besides.
 */
import type { ConfigOverrides } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import {
  createTaskflow,
  type Taskflow,
  type TaskflowOptions,
} from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "./backends.ts";

export interface SqliteNode {
  tf: Taskflow;
  /** Closes the node, then drops its database. */
  close(): Promise<void>;
}

export async function startSqliteTaskflow(
  key: string,
  overrides: ConfigOverrides = {},
  options: TaskflowOptions = {},
): Promise<SqliteNode> {
  const db = await createTestDatabase({ name: "sqlite" });
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [key],
      logLevel: "silent",
      rateLimit: false,
      ...overrides,
    },
  });
  const tf = await createTaskflow(config, options).catch(async (e: unknown) => {
    await db.drop();
    throw e;
  });
  return {
    tf,
    async close() {
      await tf.close();
      await db.drop();
    },
  };
}
