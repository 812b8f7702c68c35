import type { DefinitionRuns, Directory, HumanTaskApi } from "../../engine/index.ts";

/** What every resource plugin receives: the use cases, nothing else (see docs/architecture.md, Layers). */
export interface RouteOptions {
  engine: HumanTaskApi;
  /** Who exists. No route reads it now (the use cases check users and groups); see the report of issue 22. */
  directory: Directory;
  /** Starts of published definitions; absent: POST /v1/processes starts plain processes only. */
  definitionRuns?: DefinitionRuns | undefined;
}
