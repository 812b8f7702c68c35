import type { Clock } from "../clock-port.ts";
import type { Directory } from "../directory-port.ts";
import type { TaskStore } from "./task-store-port.ts";
import type { KnownDefinitions } from "./known-definitions.ts";

/** What every human-task use case needs; built once by the composition root. */
export interface HumanTaskDeps {
  store: TaskStore;
  directory: Directory;
  clock: Clock;
  /** Committed definitions, which never change (see known-definitions.ts). */
  definitions: KnownDefinitions;
}
