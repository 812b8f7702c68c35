/**
 * One in-process node on a fresh database of a backend, as most HTTP tests
 * start one: an API key, no log, no rate limit (tests send bursts a client
 * never would), whatever the test sets besides — and
 * `call`, a request through the node's routes with the key and an actor.
 */
import type { ConfigOverrides } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import {
  createTaskflow,
  type Taskflow,
  type TaskflowOptions,
} from "../../src/composition/create-taskflow.ts";
import { createTestDatabase, type Backend } from "./backends.ts";

export interface TestNode {
  tf: Taskflow;
  /** A request through the routes with the key, as `as`; the JSON answer. */
  call: (
    method: "GET" | "POST" | "PUT" | "DELETE",
    url: string,
    body?: object,
    as?: string,
  ) => Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any -- untyped JSON
  /** Closes the node, then drops its database. */
  close(): Promise<void>;
}

export async function startTestTaskflow(
  backend: Backend,
  key: string,
  overrides: ConfigOverrides = {},
  options: TaskflowOptions = {},
): Promise<TestNode> {
  const db = await createTestDatabase(backend);
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
    async call(method, url, body, as = "alice") {
      const r = await tf.server.inject({
        method,
        url,
        headers: { "x-api-key": key, "x-actor-id": as },
        ...(body === undefined ? {} : { payload: body }),
      });
      return { status: r.statusCode, body: r.json() };
    },
    async close() {
      await tf.close();
      await db.drop();
    },
  };
}
