import type { Clock, Directory, Store } from "../ports.ts";

/** What every human-task use case needs; built once by the composition root. */
export interface HumanTaskDeps {
  store: Store;
  directory: Directory;
  clock: Clock;
}
