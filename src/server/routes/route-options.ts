import type { DefinitionRuns } from "../../engine/definitions/definition-runs.ts";
import type { HumanTaskApi } from "../../engine/human-task-api.ts";
import type { Directory } from "../../engine/ports.ts";

/** What every resource plugin receives: the use cases, nothing else (see docs/architecture.md, Layers). */
export interface RouteOptions {
  engine: HumanTaskApi;
  /** Who exists: the routes refuse a user or group the static directory does not know. */
  directory: Directory;
  /** Starts of published definitions; absent: POST /v1/processes starts plain processes only. */
  definitionRuns?: DefinitionRuns | undefined;
}
