import type { HumanTaskApi } from "../engine/human-task-api.ts";

/** What every resource plugin receives: the use cases, nothing else (DESIGN §2). */
export interface RouteOptions {
  engine: HumanTaskApi;
}
