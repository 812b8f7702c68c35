/**
 * What a host sees of the engine parts a Taskflow holds: the calls it makes
 * (publish, read, stats), not the wiring hooks the composition root uses
 * (onHeadsChanged, prepare, follow/stop, start, close) nor how the parts are
 * built. Picked from the engine's classes, so they cannot drift from them;
 * the same objects at run time.
 */
import type { CacheManager } from "../engine/definition-cache/cache-manager.ts";
import type { DefinitionVersions } from "../engine/definitions/definition-versions.ts";
import type { TriggerRoutes } from "../engine/definitions/triggers/trigger-routes.ts";
import type { Worker } from "../engine/durable/worker.ts";

/** Versioned process definitions: validate, draft, publish, retract, list, read, diff. */
export type DefinitionVersionsApi = Pick<
  DefinitionVersions,
  "validate" | "saveDraft" | "publish" | "retract" | "list" | "get" | "diff"
>;

/** The definition cache as a host watches it: its stats, its consistency, its provider. */
export type DefinitionCacheView = Pick<CacheManager, "stats" | "consistency" | "provider">;

/** This node's trigger route table: matching, lookups, its revision and stats. */
export type TriggerRouteTable = Pick<
  TriggerRoutes,
  "match" | "lookup" | "revision" | "stats" | "table"
>;

/** The in-process worker as a host watches it: polling, busy, woken, idle. */
export type WorkerView = Pick<Worker, "polling" | "activeCount" | "notify" | "idle">;
