/**
 * Taskflow.store: the human-task store port with the lifecycle of the whole
 * database under it (one connection serves tasks, runs and definitions, so
 * migrating or closing "the store" acts on all of them). Typed by the
 * engine's port, not by the SQL adapter that implements it.
 */
import type { TaskStore } from "../engine/human-tasks/task-store-port.ts";

export interface StoreLifecycle {
  /** Applies pending migrations; resolves with the names of those this call applied. */
  migrate(): Promise<string[]>;
  /** One round trip to the database; rejects (UnavailableError) when it does not answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type TaskflowStore = TaskStore & StoreLifecycle;
