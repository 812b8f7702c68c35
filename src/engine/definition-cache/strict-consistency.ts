/**
 * The strict mode: the ledger is asked on every read (one round trip,
 * readState), so no node ever trusts a state it was told about earlier.
 */
import type { CacheConsistency } from "./cache-consistency.ts";
import type { CacheLedger } from "./cache-ledger-port.ts";

export function strictConsistency(ledger: Pick<CacheLedger, "readState">): CacheConsistency {
  return {
    mode: "strict",
    state: (view) => ledger.readState(view),
    changed: () => Promise.resolve(),
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
