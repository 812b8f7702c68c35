/**
 * A lock holder for lock-holder-kill.test.ts, run as its own process:
 * `node --import tsx test/coordination/support/lock-holder.ts '<json>'` with
 * { backend, databaseUrl, redisUrl, keyPrefix, tenant, name, leaseMs }.
 *
 * Takes the lock with withLock (so it extends the lease every lease/3, as a
 * live holder does), prints `{"token":"<n>"}` on one line, then holds until
 * it is killed. Prints `{"error":"…"}` and exits 1 when it cannot.
 */
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import type { Coordination } from "../../../src/engine/coordination/coordination-port.ts";
import { withLock } from "../../../src/engine/coordination/with-lock.ts";

interface HolderConfig {
  backend: "postgres" | "mysql" | "redis";
  databaseUrl: string | null;
  redisUrl: string;
  keyPrefix: string;
  tenant: string;
  name: string;
  leaseMs: number;
}

const config = JSON.parse(process.argv[2] ?? "{}") as HolderConfig;

function open(): Coordination {
  if (config.backend === "redis") {
    return openCoordination({
      kind: "redis",
      keyPrefix: config.keyPrefix,
      redisUrl: config.redisUrl,
    });
  }
  const db = openDatabase(config.databaseUrl!);
  return openCoordination({
    kind: "sql",
    keyPrefix: config.keyPrefix,
    sql: db.coordinationContext,
  });
}

const coordination = open();
const r = await withLock(
  coordination.locks,
  config.tenant,
  config.name,
  (signal, handle) => {
    process.stdout.write(`${JSON.stringify({ token: handle.token.toString() })}\n`);
    // Hold until killed (or the lock is lost); this timer keeps the process alive.
    return new Promise<void>((resolve) => {
      const alive = setInterval(() => undefined, 1000);
      signal.addEventListener("abort", () => {
        clearInterval(alive);
        resolve();
      });
    });
  },
  { leaseMs: config.leaseMs, waitMs: 5000 },
);
if (!r.ran) process.stdout.write(`${JSON.stringify({ error: "lock not acquired" })}\n`);
process.exit(1);
