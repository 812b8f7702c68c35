/**
 * The composition root: the one place (with the CLI that calls it) that picks
 * adapters — the store from DATABASE_URL, the directory from WF_USERS /
 * WF_GROUP_* — and wires them into the engine and the HTTP server.
 */
import { registeredStepNames } from "../engine/definitions/interpreter/step-registry.ts";
import { ServedCodeNames } from "../engine/durable/served-code-names.ts";
import type { FastifyInstance } from "fastify";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { startBackgroundJobs } from "./background-jobs.ts";
export { migrateDatabase } from "./migrate-database.ts";
import { coordinationFor } from "./coordination-for.ts";
import { createDirectory } from "../adapters/directory/create-directory.ts";
import { withLifecycle } from "../adapters/store/create-store.ts";
import { openDatabase, type Database } from "../adapters/store/open-database.ts";
import type { TaskflowConfig } from "../config/config.ts";
import { createDurable, runLimitsOf, type Durable, type DurableOptions } from "./create-durable.ts";
import type { Coordination } from "../engine/coordination/coordination-port.ts";
import type { SingletonJobs } from "../engine/coordination/singleton-jobs.ts";
import { humanTaskBridge, wakeRunsOnCompletion } from "../engine/durable/human-task-bridge.ts";
import type { DefinitionRuns } from "../engine/definitions/definition-runs.ts";
import type { CacheManager } from "../engine/definition-cache/cache-manager.ts";
import type { CacheWarnLog } from "../engine/definition-cache/cache-provider-port.ts";
import { definitionCacheFor, startDefinitionCache } from "./definition-cache-for.ts";
import { ledgerOwner } from "../engine/definition-cache/ledger-owner.ts";
import { DefinitionVersions } from "../engine/definitions/definition-versions.ts";
import type { TriggerRoutes } from "../engine/definitions/triggers/trigger-routes.ts";
import { triggerRoutesFor } from "./trigger-routes-for.ts";
import { assertHostConnections } from "./host-connections.ts";
import type { DurableRuns } from "../engine/durable/runs-api.ts";
import type { HumanTaskApi } from "../engine/human-tasks/human-task-api.ts";
import { ProcessStarts } from "../engine/definitions/process-starts.ts";
import { HumanTaskEngine } from "../engine/human-tasks/human-task-engine.ts";
import { requireKeysAtStart } from "./require-keys-at-start.ts";
import { logRunFailures } from "./log-run-failures.ts";
import { buildServer } from "../server/build-server.ts";
import { mountConsole } from "../console/mount-console.ts";
import type { ConsoleOptions } from "../console/console-options.ts";
import type { HostLogger } from "./host-logger.ts";
import type { RedisConnection } from "./redis-connection.ts";
import type { TaskflowServer } from "./taskflow-server.ts";
import type { TaskflowStore } from "./taskflow-store.ts";
import type {
  DefinitionCacheView,
  DefinitionVersionsApi,
  TriggerRouteTable,
  WorkerView,
} from "./taskflow-parts.ts";

export interface TaskflowOptions extends DurableOptions {
  /** A pino logger for the server; by default one is made at config.logLevel. */
  logger?: HostLogger | undefined;
  /**
   * An ioredis connection the host owns, for WF_COORDINATION=redis; TaskFlow never closes it.
   * Handed in while WF_COORDINATION is not redis: createTaskflow rejects with a ConfigError.
   */
  redis?: RedisConnection | undefined;
  /**
   * An ioredis connection the host owns, for WF_DEFINITION_CACHE=redis; TaskFlow never closes it.
   * Handed in while the provider is memory (set or by default): createTaskflow rejects with a ConfigError.
   */
  definitionCacheRedis?: RedisConnection | undefined;
  /** Starts runs of published definitions in place of the interpreter (a test double of the port). */
  definitionRuns?: DefinitionRuns | undefined;
  /** Serves the Console's API under /console in this process (docs/console.md); none: no Console. */
  console?: ConsoleOptions | undefined;
}

export interface Taskflow {
  readonly config: TaskflowConfig;
  /** The use cases, for embedding the engine in-process. */
  readonly engine: HumanTaskApi;
  /** The human-task store; its migrate/ping/close act on the whole database. */
  readonly store: TaskflowStore;
  /** Durable runs: start, read, signal, cancel (the /v1/runs routes). */
  readonly runs: DurableRuns;
  /** Versioned process definitions: validate, draft, publish, retract, read, diff. */
  readonly definitions: DefinitionVersionsApi;
  /** Runs of published definitions on the interpreter (what POST /v1/processes starts for them). */
  readonly definitionRuns: DefinitionRuns;
  /** POST /v1/processes: a run of a published definition, else a plain process — as REST picks. */
  readonly processes: ProcessStarts;
  /** The definition cache's read and write path (its stats tell hits, misses and bypasses). */
  readonly definitionCache: DefinitionCacheView;
  /** This node's trigger route table, following the routes revision (its stats count rebuilds). */
  readonly triggerRoutes: TriggerRouteTable;
  /** The in-process worker executing runs (when workflows are registered). */
  readonly worker: WorkerView | undefined;
  /** Locks, rate limiters, the TTL cache, one-time codes and tokens (WF_COORDINATION). */
  readonly coordination: Coordination;
  /** The HTTP server, ready for `inject` in tests; not listening until listen(). */
  readonly server: TaskflowServer;
  /** Listens on config.addr; resolves with the address, e.g. http://127.0.0.1:8081. */
  listen(): Promise<string>;
  /** Closes the server (in-flight requests finish), then the store. Safe to call twice. */
  close(): Promise<void>;
}

/** Builds everything and applies pending migrations; nothing listens yet. */
export async function createTaskflow(
  config: TaskflowConfig,
  options: TaskflowOptions = {},
): Promise<Taskflow> {
  // Before anything is opened: a contradiction between the host and the config is a start error.
  assertHostConnections(config, options);
  const database = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
  });
  const coordination = coordinationFor(config, database, asRedis(options.redis));
  const store = database.tasks;
  const directory = createDirectory(config);
  const inbox = new HumanTaskEngine({ store, directory });
  let server: FastifyInstance | undefined;
  const cacheLog: CacheWarnLog = { warn: (fields, message) => server?.log.warn(fields, message) };
  const cache = definitionCacheFor(config, database, coordination, {
    redis: asRedis(options.definitionCacheRedis),
    log: cacheLog,
  });
  // Every part reads definitions through the cache; the database's own store is only its factory.
  const definitionStore = cache.store;
  const durable = createDurable(
    { runs: database.runs, wakeups: database.wakeups, definitions: definitionStore },
    {
      ...options,
      humanTasks: humanTaskBridge(store, inbox, directory),
      directory,
      runLimits: runLimitsOf(config),
      quarantineAfter: config.runQuarantineAfter,
      // The worker retries on its own; the log says why runs are not progressing.
      onWorkerError: (what, e) =>
        server?.log.warn({ cause: e.message }, `durable worker: ${what} failed; retrying`),
      // A run that fails says so: its failure is otherwise seen only through GET /v1/runs/{id}.
      onRunOutcome: logRunFailures(
        (tenantId, id) =>
          database.runs
            .getRun(tenantId, id)
            .then((r) => r ?? Promise.reject(new Error(`run ${id} is gone`))),
        () => server?.log,
      ),
    },
  );
  // A definition's code steps and workflows: this node's, or a worker's that recorded them.
  const codeNames = new ServedCodeNames(database.runs, (kind) =>
    kind === "steps" ? registeredStepNames() : durable.registry.names(),
  );
  const definitions = new DefinitionVersions(definitionStore, undefined, codeNames);
  // /v1/hooks is served only with a DefinitionRuns (the interpreter's, or a test's double).
  const triggerRoutes = triggerRoutesFor(config, definitionStore, cache.manager, (tenantId, e) =>
    server?.log.warn({ tenantId, cause: e.message }, "trigger routes: rebuild failed"),
  );
  definitions.onHeadsChanged((tenantId) => triggerRoutes.refresh(tenantId));
  // Finishing a task of a run's ctx.humanTask wakes the run.
  const engine = wakeRunsOnCompletion(inbox, store, database.runs, () => durable.worker?.notify());
  try {
    // The server first: it refuses a keyless production config before any I/O.
    server = buildServer({
      engine,
      config,
      directory,
      logger: options.logger as Logger | undefined,
      runs: durable.runs,
      definitions,
      triggerRoutes,
      cacheLedger: database.cacheLedger,
      definitionRuns: options.definitionRuns ?? durable.definitionRuns,
      coordination,
      readiness: {
        store: () => database.ping(),
        // On `sql` the coordination is the store's database: one check covers both.
        ...(config.coordination === "sql" ? {} : { coordination: () => coordination.ping() }),
      },
    });
    if (options.console) mountConsole(server, { config, coordination, directory }, options.console);
    await database.migrate();
    await startDefinitionCache(database.cacheLedger, cache.manager);
    await triggerRoutes.rebuild();
    triggerRoutes.follow();
    // WF_API_KEYS may be empty outside development when a live key is stored.
    await requireKeysAtStart(config, coordination);
    await server.ready();
    await durable.start();
  } catch (e) {
    await triggerRoutes.stop();
    await durable.stop().catch(() => undefined);
    await server?.close().catch(() => undefined);
    await cache.manager.close().catch(() => undefined);
    await coordination.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw e;
  }
  const log = server.log;
  const jobs = startBackgroundJobs(
    coordination,
    (job, e, suppressed) =>
      log.warn({ job, cause: e.message, suppressed }, `background job ${job} failed`),
    {
      ledger: database.cacheLedger,
      owner: ledgerOwner(),
      fenceMaxAgeMs: config.definitionFenceMaxAge,
      log: cacheLog,
    },
  );
  return assemble({
    config,
    engine,
    database,
    server,
    durable,
    coordination,
    definitions,
    jobs,
    cache: cache.manager,
    triggerRoutes,
  });
}

interface Parts {
  config: TaskflowConfig;
  engine: HumanTaskApi;
  database: Database;
  server: FastifyInstance;
  durable: Durable;
  coordination: Coordination;
  definitions: DefinitionVersions;
  jobs: SingletonJobs;
  cache: CacheManager;
  triggerRoutes: TriggerRoutes;
}

function assemble(parts: Parts): Taskflow {
  const { config, engine, database, server, durable, coordination, definitions, jobs, cache } =
    parts;
  const { triggerRoutes } = parts;
  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      await triggerRoutes.stop();
      await server.close();
      await durable.stop();
    } finally {
      // Before the coordination: a job's lock is given back while its backend is still open.
      await jobs.stop().catch(() => undefined);
      await cache.close().catch(() => undefined);
      await coordination.close().catch(() => undefined);
      await database.close();
    }
  };
  return {
    config,
    engine,
    store: withLifecycle(database),
    runs: durable.runs,
    definitions,
    definitionCache: cache,
    triggerRoutes,
    definitionRuns: durable.definitionRuns,
    processes: new ProcessStarts(engine, durable.definitionRuns),
    worker: durable.worker,
    coordination,
    server: serverOf(server),
    listen: () => server.listen({ host: config.addr.host, port: config.addr.port }),
    close: () => (closing ??= close()),
  };
}

/**
 * The host's view of the Fastify app (taskflow-server.ts): the same object,
 * typed narrowly — no cast, so a Fastify upgrade that breaks the view fails here.
 */
const serverOf = (app: FastifyInstance): TaskflowServer => app;

/** The host's connection as the adapters take it: it is an ioredis Redis (redis-connection.ts). */
const asRedis = (connection: RedisConnection | undefined): Redis | undefined =>
  connection as Redis | undefined;
