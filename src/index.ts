/**
 * TaskFlow's package entry (`import … from "taskflow"`): embed the engine and
 * its HTTP server in a Node process, or run durable workflows from code.
 *
 * The groups, in the order a host meets them:
 *
 * - **Embedding**: `createTaskflow` builds the store, the engine, the durable
 *   runtime and the (not yet listening) server from a config; `startWorker` a
 *   worker without an API; `migrateDatabase` applies migrations only.
 * - **Configuration**: `loadConfig` reads the environment (docs/configuration.md).
 * - **Errors**: every failure the engine reports is a `TaskflowError` with a
 *   stable `code`; a bad config is a `ConfigError`.
 * - **Human tasks**: the use cases of the inbox (`Taskflow.engine`) and the
 *   types they take and return.
 * - **Durable execution** (docs/durable.md): `workflow()`, its `ctx`, the
 *   failure classes, and the runs API.
 * - **Published definitions** (docs/definitions.md): the code steps a
 *   definition's `call` states name, and the runs of definitions.
 * - **Types**: the domain's records (tasks, instances, runs, definitions).
 *
 * Everything here is typed by the engine's ports and the domain only: no
 * adapter, and no type of Kysely, Fastify, pino, ioredis or a database driver
 * (test/package/public-types.test.ts holds that). The HTTP client is the
 * separate entry `taskflow/client`.
 *
 * @module
 */

// Embedding: build, start and stop TaskFlow in this process.
export { createTaskflow, migrateDatabase } from "./lazy-entry-points.ts";
export type { Taskflow, TaskflowOptions } from "./composition/create-taskflow.ts";
export type {
  TaskflowServer,
  InjectRequest,
  InjectResponse,
} from "./composition/taskflow-server.ts";
export type { InjectCookie, InjectPayload } from "./composition/taskflow-server.ts";
export type { TaskflowStore, StoreLifecycle } from "./composition/taskflow-store.ts";
export type { HostLogger } from "./composition/host-logger.ts";
export type { RedisConnection } from "./composition/redis-connection.ts";
export {
  createDurable,
  startWorker,
  type Durable,
  type DurableOptions,
  type DurableStores,
} from "./composition/create-durable.ts";

// Configuration: the environment and overrides, read and checked once at the start.
export {
  loadConfig,
  isDevelopment,
  type TaskflowConfig,
  type ConfigOverrides,
  type LoadConfigOptions,
  type ListenAddress,
  type LogLevel,
} from "./config/index.ts";

// Errors: branch on `code` (ErrorCodes) or `reason` (ErrorReasons), never on the message.
export {
  TaskflowError,
  isTaskflowError,
  taskflowError,
  ErrorCodes,
  type ErrorCode,
} from "./domain/errors.ts";
// The situation within a code (docs/api.md, "Reasons"): branch on `reason` for finer cases.
export { ErrorReasons, type ErrorReason, type ReasonParams } from "./domain/error-reasons.ts";
export { ConfigError, isConfigError } from "./config/index.ts";

// Human tasks: the inbox's use cases (Taskflow.engine) and what they take and return.
export type {
  HumanTaskApi,
  StartResult,
  CompleteResult,
  CompleteAndEndResult,
  AssignResult,
  InstanceTree,
  Page,
  PageRequest,
} from "./engine/human-tasks/human-task-api.ts";
export type { ActorContext, TenantContext } from "./engine/actor-context.ts";
export type { Completion } from "./domain/completion.ts";
export type { AssignmentRequest, NextAssignment } from "./domain/assignment.ts";
export type { AssigneeKind, AssigneeRequest, TaskAssignee } from "./domain/assignee.ts";

// Durable execution (docs/durable.md): workflow(), its ctx types and failure classes, and runs.
export * from "./workflow.ts";
export { WorkflowRegistry } from "./engine/durable/registry.ts";
export { DurableRuns, type RunPage, type StartRunRequest } from "./engine/durable/runs-api.ts";
export { Worker, type WorkerOptions } from "./engine/durable/worker.ts";

// Published definitions (docs/definitions.md): the code steps their `call` states name, and their runs.
export {
  registerStep,
  type CodeStepContext,
  type CodeStepFn,
} from "./engine/definitions/interpreter/step-registry.ts";
export type {
  DefinitionRuns,
  StartDefinitionCommand,
  StartedDefinitionRun,
  DefinitionResponse,
} from "./engine/definitions/definition-runs.ts";

// Types: the domain's records, as the engine returns them.
export type { Task, TaskStatus } from "./domain/task.ts";
export type { Instance, InstanceKind, InstanceStatus, ProcessState } from "./domain/instance.ts";
export type { Definition } from "./domain/definition.ts";
export type { Run, RunEvent, RunStatus } from "./domain/run.ts";
export type { Vars } from "./domain/vars.ts";
export type { Duration } from "./domain/duration.ts";
