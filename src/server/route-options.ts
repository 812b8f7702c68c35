import type { HumanTaskApi } from "../engine/human-task-api.ts";

/** What every resource plugin receives: the use cases, nothing else (see docs/architecture.md, Layers). */
export interface RouteOptions {
  engine: HumanTaskApi;
}
