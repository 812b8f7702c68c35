/**
 * The deployments a REST suite runs against, unchanged:
 *
 * - `sqlite`: one createTaskflow node on a fresh SQLite file (the suites' original setup);
 * - `mysql-2-nodes`: two createTaskflow nodes on ONE fresh MariaDB database,
 *   WF_COORDINATION=sql and no Redis anywhere (no REDIS_URL, an empty env);
 * - `mysql-2-nodes-redis`: the very same config plus WF_COORDINATION=redis and a
 *   REDIS_URL (`redisSwitch`), so the suite shows that moving to Redis is
 *   configuration only.
 *
 * A deployment's `inject` spreads requests over its nodes round-robin, like a load
 * balancer, so consecutive requests of one test land on different nodes. Every node
 * gets the same TaskflowOptions: with `workflows`, each runs its own worker.
 * An unreachable MariaDB or Redis skips outside CI and fails the run in CI.
 */
import { randomBytes } from "node:crypto";
import type { InjectOptions } from "fastify";
import type { ConfigOverrides, TaskflowConfig } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import {
  createTaskflow,
  type Taskflow,
  type TaskflowOptions,
} from "../../src/composition/create-taskflow.ts";
import type { InjectResponse, TaskflowServer } from "../../src/composition/taskflow-server.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { backendTestOptions, createTestDatabase } from "./backends.ts";
import { roundRobinProxy } from "./round-robin-proxy.ts";

export type DeploymentName = "sqlite" | "mysql-2-nodes" | "mysql-2-nodes-redis";

export interface Deployment {
  readonly name: DeploymentName;
  readonly nodes: readonly Taskflow[];
  /** Fastify `inject` on the next node, round-robin. */
  inject(options: InjectOptions | string): Promise<InjectResponse>;
  /** Listens every node; resolves with one base URL that spreads requests over them. */
  listen(): Promise<string>;
  /** Closes every node (and the proxy), drops the database, deletes the Redis keys. */
  close(): Promise<void>;
}

/** A deployment's database and config, before any node starts. */
export interface PreparedDeployment {
  readonly config: TaskflowConfig;
  /** Drops the database, deletes the Redis keys. */
  cleanUp(): Promise<void>;
}

export interface DeploymentKind {
  readonly name: DeploymentName;
  readonly nodeCount: number;
  /**
   * The database and the config every node gets, for a suite that assembles its own
   * nodes (e.g. with a settable clock); `start` is this plus createTaskflow per node.
   */
  prepare(
    overrides?: ConfigOverrides,
    load?: { requireApiKeys?: boolean },
  ): Promise<PreparedDeployment>;
  /** node:test options: `{ skip }` outside CI when a server it needs is down. */
  testOptions(): Promise<{ skip?: string }>;
  /** Starts the deployment with the suite's own config and options on every node. */
  start(
    overrides?: ConfigOverrides,
    options?: TaskflowOptions,
    load?: { requireApiKeys?: boolean },
  ): Promise<Deployment>;
}

/** The whole difference between the two MariaDB deployments: WF_COORDINATION=redis + REDIS_URL. */
export const redisSwitch: ConfigOverrides = { coordination: "redis", redisUrl: REDIS_TEST_URL };

const twoNodeBase = (databaseUrl: string, keyPrefix: string): ConfigOverrides => ({
  databaseUrl,
  keyPrefix,
  coordination: "sql",
  redisUrl: null,
});

// Probed once, when a suite imports this module, before any suite runs: a probe made later
// can time out behind a suite that keeps the loop busy (a fuzz on synchronous SQLite).
const mysqlOptions = await backendTestOptions({ name: "mysql" });
const redisOptions =
  mysqlOptions.skip !== undefined ? mysqlOptions : await coordinationTestOptions("redis");

function probed(name: "mysql-2-nodes" | "mysql-2-nodes-redis"): Promise<{ skip?: string }> {
  return Promise.resolve(name === "mysql-2-nodes" ? mysqlOptions : redisOptions);
}

export const deployments: readonly DeploymentKind[] = [
  kind(
    "sqlite",
    1,
    () => Promise.resolve({}),
    async (overrides) => {
      const db = await createTestDatabase({ name: "sqlite" });
      return { overrides: { ...overrides, databaseUrl: db.url }, cleanUp: () => db.drop() };
    },
  ),
  kind(
    "mysql-2-nodes",
    2,
    () => probed("mysql-2-nodes"),
    async (overrides) => {
      const db = await createTestDatabase({ name: "mysql" });
      const base = twoNodeBase(db.url, freshPrefix());
      return { overrides: { ...overrides, ...base }, cleanUp: () => db.drop() };
    },
  ),
  kind(
    "mysql-2-nodes-redis",
    2,
    () => probed("mysql-2-nodes-redis"),
    async (overrides) => {
      const db = await createTestDatabase({ name: "mysql" });
      const keyPrefix = freshPrefix();
      return {
        overrides: { ...overrides, ...twoNodeBase(db.url, keyPrefix), ...redisSwitch },
        async cleanUp() {
          await deleteRedisPrefix(keyPrefix);
          await db.drop();
        },
      };
    },
  ),
];

function kind(
  name: DeploymentName,
  nodeCount: number,
  testOptions: () => Promise<{ skip?: string }>,
  database: (
    overrides: ConfigOverrides,
  ) => Promise<{ overrides: ConfigOverrides; cleanUp(): Promise<void> }>,
): DeploymentKind {
  const prepare = async (
    overrides: ConfigOverrides = {},
    load: { requireApiKeys?: boolean } = {},
  ) => {
    const db = await database(overrides);
    try {
      // Not under test here: on a loaded 2-core machine the start blocks the loop for a whole
      // 1 s sample, which under-pressure reads as "Infinity ms behind" and sheds requests.
      // An empty env: no REDIS_URL or WF_* of the machine leaks into a deployment.
      const config = loadConfig({
        env: {},
        requireApiKeys: load.requireApiKeys ?? true,
        overrides: { maxEventLoopDelay: 0, addr: "127.0.0.1:0", ...db.overrides },
      });
      return { config, cleanUp: () => db.cleanUp() };
    } catch (e) {
      await db.cleanUp();
      throw e;
    }
  };
  return {
    name,
    nodeCount,
    testOptions,
    prepare,
    async start(overrides = {}, options = {}, load = {}) {
      const prepared = await prepare(overrides, load);
      return startNodes(name, nodeCount, prepared, options);
    },
  };
}

const freshPrefix = () => `tftest:${randomBytes(6).toString("hex")}:`;

async function startNodes(
  name: DeploymentName,
  count: number,
  prepared: PreparedDeployment,
  options: TaskflowOptions,
): Promise<Deployment> {
  const nodes: Taskflow[] = [];
  let stopProxy: (() => Promise<void>) | undefined;
  const close = async () => {
    await stopProxy?.();
    await Promise.all(nodes.map((n) => n.close()));
    await prepared.cleanUp();
  };
  try {
    // One after the other: both would run the migrations at once otherwise, which the
    // migration lock handles but which is not what these suites test.
    for (let i = 0; i < count; i++) nodes.push(await createTaskflow(prepared.config, options));
  } catch (e) {
    await close();
    throw e;
  }
  return {
    name,
    nodes,
    inject: roundRobin(nodes.map((n) => n.server)),
    async listen() {
      const urls = await Promise.all(nodes.map((n) => n.listen()));
      if (urls.length === 1) return urls[0] as string;
      const proxy = await roundRobinProxy(urls);
      stopProxy = () => proxy.close();
      return proxy.url;
    },
    close,
  };
}

/** Fastify `inject` on each app in turn, like a load balancer in front of them. */
export function roundRobin(
  apps: readonly Pick<TaskflowServer, "inject">[],
): (options: InjectOptions | string) => Promise<InjectResponse> {
  let next = 0;
  return (request) =>
    (apps[next++ % apps.length] as Pick<TaskflowServer, "inject">).inject(request);
}
