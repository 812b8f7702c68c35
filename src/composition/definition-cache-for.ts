/**
 * The definition cache a node opens (composition root): the payload provider
 * WF_DEFINITION_CACHE names, the consistency mode, the read/write path over
 * the store's ledger, and the cached store every engine part reads
 * definitions through.
 */
import type { Redis } from "ioredis";
import { openCacheProvider } from "../adapters/definition-cache/open-cache-provider.ts";
import { openConsistency } from "../adapters/definition-cache/open-consistency.ts";
import type { Database } from "../adapters/store/open-database.ts";
import type { TaskflowConfig } from "../config/config.ts";
import type { Coordination } from "../engine/coordination/coordination-port.ts";
import { CacheManager } from "../engine/definition-cache/cache-manager.ts";
import type { CacheWarnLog } from "../engine/definition-cache/cache-provider-port.ts";
import { CachedDefinitionStore } from "../engine/definition-cache/cached-definition-store.ts";
import { ledgerOwner } from "../engine/definition-cache/ledger-owner.ts";
import type { CacheLedger } from "../engine/definition-cache/cache-ledger-port.ts";

export interface DefinitionCacheParts {
  readonly manager: CacheManager;
  readonly store: CachedDefinitionStore;
}

export interface DefinitionCacheWiring {
  /** A connection the host owns for the Redis provider; never closed by TaskFlow. */
  readonly redis?: Redis | undefined;
  readonly log: CacheWarnLog;
}

export function definitionCacheFor(
  config: TaskflowConfig,
  database: Pick<
    Database,
    "cacheLedger" | "definitions" | "backend" | "coordinationContext" | "deploymentId"
  >,
  coordination: Pick<Coordination, "locks">,
  wiring: DefinitionCacheWiring,
): DefinitionCacheParts {
  const provider = openCacheProvider(config, { redis: wiring.redis, log: wiring.log });
  const consistency = openConsistency(config, database, {
    redis: wiring.redis,
    log: wiring.log,
  });
  const manager = new CacheManager({
    provider,
    ledger: database.cacheLedger,
    consistency,
    enabled: config.definitionCacheEnabled,
    prefix: config.definitionCachePrefix,
    deployment: () => database.deploymentId(),
    owner: ledgerOwner(),
    log: wiring.log,
  });
  const store = new CachedDefinitionStore(database.definitions, manager, {
    // Built at the first publish, not here: Redis coordination's keys carry the deployment
    // id, which is read after the migration.
    get locks() {
      return coordination.locks;
    },
    waitMs: config.definitionLockTimeout,
  });
  return { manager, store };
}

/**
 * After the migration, before the first read: this node's first owner
 * heartbeat (before it can open a fence; the background jobs keep beating),
 * then the consistency mode starts following the ledger. Both roots
 * (createTaskflow, startWorker) call it, so a worker reads definitions with
 * the same guarantees as a server.
 */
export async function startDefinitionCache(
  ledger: Pick<CacheLedger, "beat">,
  manager: Pick<CacheManager, "consistency">,
): Promise<void> {
  await ledger.beat(ledgerOwner());
  await manager.consistency.start();
}
