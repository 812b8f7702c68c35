import type { Clock, Directory, Store } from "../ports.ts";
import type { DefinitionCache } from "./definition-cache.ts";
import type { OpenTaskCache } from "./open-task-cache.ts";
import type { TreeTurns } from "./tree-turns.ts";

/** What every human-task use case needs; built once by the composition root. */
export interface HumanTaskDeps {
  store: Store;
  directory: Directory;
  clock: Clock;
  /** Committed definitions, which never change (see definition-cache.ts). */
  definitions: DefinitionCache;
  /** User tasks created here, so completing one skips its read (see open-task-cache.ts). */
  openTasks: OpenTaskCache;
  /** Completion statements of one tree take turns in this process (see tree-turns.ts). */
  treeTurns: TreeTurns;
}
