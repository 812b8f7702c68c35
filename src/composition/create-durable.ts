/**
 * Composition of the durable runtime: the run store next to the human-task
 * store, a registry of workflows, the runs use cases and (optionally) an
 * in-process worker. Used by createTaskflow, `taskflow serve` and `taskflow worker`.
 */
import { registeredStepNames } from "../engine/definitions/interpreter/step-registry.ts";
import type { RunLimits } from "../engine/durable/run-limits.ts";
import { createDirectory } from "../adapters/directory/create-directory.ts";
import { openDatabase } from "../adapters/store/open-database.ts";
import { startBackgroundJobs, type JobErrorReporter } from "./background-jobs.ts";
import type { TaskflowConfig } from "../config/config.ts";
import type { CacheWarnLog } from "../engine/definition-cache/cache-provider-port.ts";
import { coordinationFor } from "./coordination-for.ts";
import type { Directory } from "../engine/directory-port.ts";
import { humanTaskBridge, type HumanTaskBridge } from "../engine/durable/human-task-bridge.ts";
import { WorkflowRegistry } from "../engine/durable/registry.ts";
import type { RunStore } from "../engine/durable/run-store-port.ts";
import { DurableRuns } from "../engine/durable/runs-api.ts";
import type { AnyWorkflowDefinition } from "../engine/durable/types.ts";
import { Worker, type WorkerOptions } from "../engine/durable/worker.ts";
import { HumanTaskEngine } from "../engine/human-tasks/human-task-engine.ts";
import type { DefinitionRuns } from "../engine/definitions/definition-runs.ts";
import { DefinitionCache } from "../engine/definitions/interpreter/definition-cache.ts";
import { InterpretedDefinitionRuns } from "../engine/definitions/interpreter/interpreted-runs.ts";
import { definitionRunWorkflow } from "../engine/definitions/interpreter/interpreter.ts";
import { ResponseWaiters } from "../engine/definitions/interpreter/response-waiters.ts";
import { DEFINITION_RUN } from "../engine/definitions/interpreter/run-input.ts";
import type { DefinitionVersionStore } from "../engine/definitions/definition-version-store-port.ts";
import type { Wakeups } from "../engine/durable/wakeups-port.ts";
import { ledgerOwner } from "../engine/definition-cache/ledger-owner.ts";
import { definitionCacheFor, startDefinitionCache } from "./definition-cache-for.ts";
import type { HostLogger } from "./host-logger.ts";
import { logRunFailures } from "./log-run-failures.ts";
import { createLogger } from "../server/hooks/logging.ts";
import { listenForHealth, type HealthListener } from "./worker-health.ts";

export interface DurableOptions {
  /** Workflows to register (e.g. from `import * as flows from "../flows.ts"`), or a registry. */
  workflows?: Iterable<AnyWorkflowDefinition> | Record<string, unknown> | WorkflowRegistry;
  /**
   * Run a worker in this process (default: yes — every worker also runs published definitions).
   * Options: lease, heartbeat, cap of concurrent runs (maxConcurrent), poll period.
   */
  worker?: boolean | WorkerOptions;
}

interface DurableWiring extends DurableOptions {
  /** The inbox, for ctx.humanTask. */
  humanTasks?: HumanTaskBridge | undefined;
  /** Where the worker reports failed claims and heartbeats, unless its options say. */
  onWorkerError?: WorkerOptions["onError"];
  /** Told about runs that end failed (logging), unless the worker's options say. */
  onRunOutcome?: WorkerOptions["onOutcome"];
  /** Who exists: the starter of a run or a process must be a known user (none: anyone). */
  directory?: Directory | undefined;
  /** Caps on signals and history per run (config: WF_RUN_MAX_*, WF_SIGNAL_MAX_BYTES). */
  runLimits?: RunLimits | undefined;
  /** Executions in a row without parking before a run is quarantined (WF_RUN_QUARANTINE_AFTER). */
  quarantineAfter?: number | undefined;
}

export interface Durable {
  readonly registry: WorkflowRegistry;
  readonly runStore: RunStore;
  readonly runs: DurableRuns;
  /** Runs of published definitions, on the interpreter (registered with every worker). */
  readonly definitionRuns: DefinitionRuns;
  readonly worker: Worker | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function toRegistry(w: DurableOptions["workflows"]): WorkflowRegistry {
  if (w instanceof WorkflowRegistry) return w;
  const registry = new WorkflowRegistry();
  if (w === undefined) return registry;
  if (Symbol.iterator in w) {
    for (const d of w) registry.register(d);
  } else registry.registerModule(w);
  return registry;
}

/** The stores the durable runtime works on, as ports (a database's, in the composition roots). */
export interface DurableStores {
  readonly runs: RunStore;
  /** LISTEN/NOTIFY wake-ups where the database has them (PostgreSQL); undefined: workers poll. */
  readonly wakeups: Wakeups | undefined;
  /** Published definitions, for the interpreter: the cache-backed store in both roots. */
  readonly definitions: DefinitionVersionStore;
}

/** The durable runtime over a database's run store (and its wake-ups, where it has them). */
export function createDurable(database: DurableStores, options: DurableWiring): Durable {
  const registry = toRegistry(options.workflows);
  const runStore = database.runs;
  const definitions = new DefinitionCache(database.definitions);
  const responses = new ResponseWaiters();
  // Every worker runs published definitions, so a worker runs by default even
  // where no code workflow is registered.
  if (registry.get(DEFINITION_RUN) === undefined) {
    registry.register(definitionRunWorkflow({ definitions, runs: runStore, responses }));
  }
  const wantWorker = options.worker ?? true;
  const workerOptions: WorkerOptions =
    wantWorker === true || wantWorker === false ? {} : wantWorker;
  const worker =
    wantWorker === false
      ? undefined
      : new Worker(
          runStore,
          registry,
          {
            onError: options.onWorkerError,
            onOutcome: options.onRunOutcome,
            // The interpreter's code steps are this process's too: nodes without them check publishes.
            servedSteps: registeredStepNames,
            ...workerOptions,
            contextOptions: {
              ...(options.runLimits && { maxHistoryEvents: options.runLimits.maxHistoryEvents }),
              ...(options.quarantineAfter !== undefined && {
                quarantineAfter: options.quarantineAfter,
              }),
              ...workerOptions.contextOptions,
              humanTasks: options.humanTasks,
            },
          },
          database.wakeups,
        );
  const runs = new DurableRuns(
    runStore,
    registry,
    worker,
    Date.now,
    options.directory,
    options.runLimits,
  );
  return {
    registry,
    runStore,
    runs,
    definitionRuns: new InterpretedDefinitionRuns(
      definitions,
      runs,
      runStore,
      responses,
      options.directory,
    ),
    worker,
    start: async () => {
      await worker?.start();
    },
    stop: async () => {
      await worker?.stop();
    },
  };
}

/**
 * `taskflow worker`: migrations, then a worker without an API, and the
 * background jobs every node runs (a worker-only node can hold them too).
 * With config.workerHealthAddr, a health listener (worker-health.ts). Runs
 * that fail are logged, as on a server (log-run-failures.ts). Resolves once it runs.
 */
export async function startWorker(
  config: TaskflowConfig,
  workflows: Record<string, unknown>,
  worker: WorkerOptions = {},
  /** Where a failing background job is reported (rate-limited); default: nowhere. */
  onJobError: JobErrorReporter = () => undefined,
  /** Failed runs and health requests are logged here; default: a pino logger at config.logLevel. */
  logger: HostLogger = createLogger(config),
): Promise<{ durable: Durable; health: HealthListener | undefined; close(): Promise<void> }> {
  const database = openDatabase(config.databaseUrl, {
    sqliteSynchronous: config.sqliteSynchronous,
  });
  const coordination = coordinationFor(config, database);
  const cacheLog: CacheWarnLog = { warn: (fields, message) => logger.warn(fields, message) };
  const cache = definitionCacheFor(config, database, coordination, { log: cacheLog });
  let durable: Durable | undefined;
  let health: HealthListener | undefined;
  try {
    if (config.workerHealthAddr !== null) {
      health = await listenForHealth(
        config.workerHealthAddr,
        logger,
        () => database.ping(),
        () => durable?.worker,
      );
    }
    await database.migrate();
    // As createTaskflow: the interpreter reads definitions through the cache, never the raw store.
    await startDefinitionCache(database.cacheLedger, cache.manager);
    const store = database.tasks;
    const directory = createDirectory(config);
    const engine = new HumanTaskEngine({ store, directory });
    const humanTasks = humanTaskBridge(store, engine, directory);
    // A run that fails says so in this process's log: otherwise only GET /v1/runs/{id} tells.
    const onRunOutcome = logRunFailures(
      (tenantId, id) =>
        database.runs
          .getRun(tenantId, id)
          .then((r) => r ?? Promise.reject(new Error(`run ${id} is gone`))),
      () => logger,
    );
    const stores = { runs: database.runs, wakeups: database.wakeups, definitions: cache.store };
    const started = createDurable(stores, {
      workflows,
      worker,
      humanTasks,
      directory,
      runLimits: runLimitsOf(config),
      quarantineAfter: config.runQuarantineAfter,
      onRunOutcome,
    });
    await started.start();
    durable = started;
    const jobs = startBackgroundJobs(coordination, onJobError, {
      ledger: database.cacheLedger,
      owner: ledgerOwner(),
      fenceMaxAgeMs: config.definitionFenceMaxAge,
      log: cacheLog,
    });
    let closing: Promise<void> | undefined;
    const close = async () => {
      try {
        // The health listener outlives the worker's drain: /readyz says "not polling" meanwhile.
        await started.stop();
      } finally {
        await health?.close().catch(() => undefined);
        await jobs.stop().catch(() => undefined);
        await cache.manager.close().catch(() => undefined);
        await coordination.close().catch(() => undefined);
        await database.close();
      }
    };
    return { durable: started, health, close: () => (closing ??= close()) };
  } catch (e) {
    await health?.close().catch(() => undefined);
    await cache.manager.close().catch(() => undefined);
    await coordination.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw e;
  }
}

/** The caps per run a config sets (engine/durable/run-limits.ts). */
export function runLimitsOf(config: TaskflowConfig): RunLimits {
  return {
    maxPendingSignals: config.runMaxPendingSignals,
    maxHistoryEvents: config.runMaxHistory,
    maxSignalBytes: config.signalMaxBytes,
  };
}
