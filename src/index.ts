/** The package entry: embed the engine, or run the server, from code. */
export { createTaskflow, migrateDatabase } from "./create-taskflow.ts";
export type { Taskflow, TaskflowOptions } from "./create-taskflow.ts";
export {
  ConfigError,
  isConfigError,
  isDevelopment,
  loadConfig,
  type ConfigOverrides,
  type ListenAddress,
  type LoadConfigOptions,
  type LogLevel,
  type TaskflowConfig,
} from "./config/index.ts";
export {
  ErrorCodes,
  TaskflowError,
  isTaskflowError,
  taskflowError,
  type ErrorCode,
} from "./domain/errors.ts";
export { ErrorReasons, type ErrorReason, type ReasonParams } from "./domain/error-reasons.ts";
export type { AssigneeKind, AssigneeRequest, TaskAssignee } from "./domain/assignee.ts";
export type { AssignmentRequest, NextAssignment } from "./domain/assignment.ts";
export type { Completion } from "./domain/completion.ts";
export type { Definition } from "./domain/definition.ts";
export type { Instance, InstanceKind, InstanceStatus, ProcessState } from "./domain/instance.ts";
export type { Task, TaskStatus } from "./domain/task.ts";
export type { Vars } from "./domain/vars.ts";
export type { ActorContext, TenantContext } from "./engine/actor-context.ts";
export type {
  AssignResult,
  CompleteAndEndResult,
  CompleteResult,
  HumanTaskApi,
  InstanceTree,
  Page,
  PageRequest,
  StartResult,
} from "./engine/human-task-api.ts";

// Durable execution (docs/durable.md): workflow() and its public types and failure classes.
export * from "./workflow.ts";
export { createDurable, startWorker, type Durable, type DurableOptions } from "./create-durable.ts";
export { WorkflowRegistry } from "./engine/durable/registry.ts";
export { DurableRuns, type RunPage, type StartRunRequest } from "./engine/durable/runs-api.ts";
export { Worker, type WorkerOptions } from "./engine/durable/worker.ts";
export type { Duration } from "./domain/duration.ts";
export type { Run, RunEvent, RunStatus } from "./domain/run.ts";

// Published definitions (docs/definitions.md): the code steps their `call` states name.
export {
  registerStep,
  type CodeStepContext,
  type CodeStepFn,
} from "./engine/definitions/interpreter/step-registry.ts";
export type {
  DefinitionResponse,
  DefinitionRuns,
  StartDefinitionCommand,
  StartedDefinitionRun,
} from "./engine/definitions/definition-runs.ts";
