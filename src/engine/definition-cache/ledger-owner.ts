/**
 * The owner instance written into ledger rows: host, pid and a boot id. The
 * boot id tells two processes apart when a pid is reused on the same host
 * (a restarted container is often pid 1 again), so an operator can see that
 * a fence's writer is gone. It is also the id a node beats under
 * (owner-heartbeat.ts), which is how the reaper tells that a writer is gone.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

const BOOT_ID = randomUUID();

/** `host/pid/boot id` of this process; the same for its whole life. */
export function ledgerOwner(): string {
  return `${hostname()}/${process.pid}/${BOOT_ID}`;
}
