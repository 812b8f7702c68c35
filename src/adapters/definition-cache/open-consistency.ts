/**
 * Picks the consistency mode (WF_DEFINITION_CACHE_CONSISTENCY) and, for the
 * bounded mode, how a node hears that the ledger moved. Nothing is opened
 * until start().
 */
import type { Redis } from "ioredis";
import type { Database } from "../store/open-database.ts";
import type { TaskflowConfig } from "../../config/config.ts";
import type { CacheConsistency } from "../../engine/definition-cache/cache-consistency.ts";
import type { CacheWarnLog } from "../../engine/definition-cache/cache-provider.ts";
import { strictConsistency } from "../../engine/definition-cache/strict-consistency.ts";

export interface OpenConsistencyOptions {
  /** A connection the host owns; the bounded mode's Redis publisher may share it. */
  redis?: Redis | undefined;
  log: CacheWarnLog;
}

export function openConsistency(
  config: Pick<TaskflowConfig, "definitionCacheConsistency">,
  database: Pick<Database, "cacheLedger" | "backend" | "coordinationContext">,
  _options: OpenConsistencyOptions,
): CacheConsistency {
  if (config.definitionCacheConsistency === "bounded") {
    throw new Error("WF_DEFINITION_CACHE_CONSISTENCY=bounded is not built yet");
  }
  return strictConsistency(database.cacheLedger);
}
