/**
 * The engine as its edges see it: what the server and the Console may import
 * (eslint.config.js holds them to this file). A use case's API, its request
 * and result types, the ports an edge is handed and the constants its schemas
 * repeat — nothing of how a use case is carried out, so the engine's inside
 * can move without touching an edge. Listed by area; within one, the use case
 * first, then its types.
 */

// Who acts, for which tenant.
export type { ActorContext, TenantContext } from "./actor-context.ts";

// The human-task inbox: start, assign, claim, complete, read.
export type {
  AssignResult,
  CompleteAndEndResult,
  CompleteResult,
  HumanTaskApi,
  InstanceTree,
  Page,
  PageRequest,
  StartResult,
} from "./human-tasks/human-task-api.ts";
export type { Directory } from "./directory-port.ts";

// POST /v1/processes: a published definition's run, else a plain process.
export {
  ProcessStarts,
  type StartedProcess,
  type StartProcessRequest,
} from "./definitions/process-starts.ts";

// Durable runs: start, list, read, history, signal, cancel.
export type {
  DurableRuns,
  HistoryPage,
  HistoryRequest,
  RunListRequest,
  RunPage,
  StartRunRequest,
} from "./durable/runs-api.ts";
export { HISTORY_PAGE_BYTES, MAX_HISTORY_PAGE } from "./durable/run-limits.ts";
export { RUN_LIST_ORDERS, type RunListOrder } from "./durable/run-list-order.ts";

// Versioned definitions: the language, its schema and text, versions, diffs, runs, triggers.
export { TRIGGER_METHODS } from "./definitions/definition-language.ts";
export { definitionSchema } from "./definitions/definition-schema.ts";
export { parseDefinitionText, type DefinitionFormat } from "./definitions/definition-text.ts";
export type { DefinitionVersions, VersionSelector } from "./definitions/definition-versions.ts";
export type { DiffEntry } from "./definitions/definition-diff.ts";
export type {
  DefinitionResponse,
  DefinitionRuns,
  StartDefinitionCommand,
  StartedDefinitionRun,
} from "./definitions/definition-runs.ts";
export { requestSegments, type RouteTarget } from "./definitions/triggers/route-table.ts";
export type { TriggerRoutes } from "./definitions/triggers/trigger-routes.ts";

// The definition cache's ledger (the cache admin routes).
export type { CacheLedger, IncompleteMutation } from "./definition-cache/cache-ledger-port.ts";

// Coordination: the port, and the use cases built on it (API keys, limits, codes, tokens).
export type { Coordination } from "./coordination/coordination-port.ts";
export {
  ApiKeys,
  isStoredKeyShape,
  type ApiKeyInfo,
  type ApiKeyListing,
  type CreatedApiKey,
} from "./coordination/api-keys.ts";
export type { RateLimiter, RateLimiters } from "./coordination/rate-limiter-port.ts";
export type { JsonValue, TtlCache } from "./coordination/ttl-cache-port.ts";
export type { OneTimeCodes } from "./coordination/one-time-codes-port.ts";
export type { OpaqueTokens, TokenInfo } from "./coordination/opaque-tokens-port.ts";
