/** The run store that goes with a store made by createStore (same pool). */
import type { RunStore } from "../../../engine/durable/run-store-port.ts";
import type { Wakeups } from "../../../engine/durable/worker.ts";
import type { Store } from "../../../engine/ports.ts";
import { SqlStore } from "../sql-store.ts";
import { pgWakeups } from "./pg-wakeups.ts";

export function runStoreOf(store: Store): RunStore {
  if (!(store instanceof SqlStore)) throw new Error("durable runs need the SQL store");
  return store.runStore();
}

/** LISTEN/NOTIFY wake-ups on PostgreSQL; undefined elsewhere (polling only). */
export function wakeupsFor(store: Store, databaseUrl: string): Wakeups | undefined {
  return store.dialect === "postgres" ? pgWakeups(databaseUrl) : undefined;
}
