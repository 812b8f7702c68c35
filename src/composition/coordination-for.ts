/**
 * The coordination a node opens: what WF_COORDINATION names, over the store's
 * database for `sql`; on Redis its keys carry the database's deployment id
 * (read by database.migrate(), before the first primitive is built).
 */
import type { Redis } from "ioredis";
import { openCoordination } from "../adapters/coordination/open-coordination.ts";
import type { Database } from "../adapters/store/open-database.ts";
import type { TaskflowConfig } from "../config/config.ts";
import type { Coordination } from "../engine/coordination/coordination-port.ts";

/** The coordination backend configuration names (WF_COORDINATION), over this database for `sql`. */
export function coordinationFor(
  config: Pick<
    TaskflowConfig,
    "coordination" | "keyPrefix" | "redisUrl" | "redisSentinels" | "redisSentinelName"
  >,
  database: Pick<Database, "coordinationContext" | "deploymentId">,
  redis?: Redis,
): Coordination {
  const sentinelName = config.redisSentinelName;
  return openCoordination({
    kind: config.coordination,
    keyPrefix: config.keyPrefix,
    deployment: () => database.deploymentId(),
    sql: database.coordinationContext,
    redisUrl: config.redisUrl,
    redisSentinel:
      config.redisSentinels.length > 0 && sentinelName !== null
        ? { name: sentinelName, hosts: config.redisSentinels }
        : null,
    redis,
  });
}
