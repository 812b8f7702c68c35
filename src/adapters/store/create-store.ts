/**
 * The human-task store alone, with the lifecycle of the database it opens — for
 * tools and tests that need no run store. Composition roots use openDatabase.
 * Constructing a store never connects; the first query (normally migrate()) does.
 */
import type { SqlTaskStore } from "./task-store/sql-task-store.ts";
import { openDatabase, type Database, type DatabaseLifecycle } from "./open-database.ts";

export { dialectFor, type StoreOptions } from "./open-database.ts";
import type { StoreOptions } from "./open-database.ts";

/** A human-task store that also migrates, pings and closes its database. */
export type StandaloneStore = SqlTaskStore & DatabaseLifecycle;

export function createStore(databaseUrl: string, options?: StoreOptions): StandaloneStore {
  return withLifecycle(openDatabase(databaseUrl, options));
}

/** The database's human-task store, answering migrate/ping/close for the whole database. */
export function withLifecycle(database: Database): StandaloneStore {
  const view = Object.create(database.tasks) as StandaloneStore;
  view.migrate = () => database.migrate();
  view.ping = () => database.ping();
  view.close = () => database.close();
  return view;
}
