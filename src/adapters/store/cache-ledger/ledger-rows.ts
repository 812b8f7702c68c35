/** What the ledger's SQL operations share: the connection's type, ids as numbers, retries. */
import type { Kysely } from "kysely";
import type { StoreSchema } from "../db-schema.ts";
import { DriverErrorKind } from "../dialects/driver-error.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";

export type LedgerDb = Kysely<StoreSchema>;

/** pg hands BIGINT back as a string; the ids stay far below 2^53. */
export const toNumber = (v: number | string | bigint | null | undefined): number =>
  v === null || v === undefined ? 0 : Number(v);

const MAX_ATTEMPTS = 8;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` again after a deadlock or a serialization failure (both roll the
 * whole statement or transaction back, so running it again is safe). MariaDB
 * takes gap locks on the ledger's index: a prune's range delete and another
 * node's insert can deadlock, and the loser must not turn into an error.
 */
export async function retryingConflicts<T>(
  parts: Pick<StoreDialect, "classifyError">,
  fn: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      const kind = parts.classifyError(e);
      const retryable = kind === DriverErrorKind.Deadlock || kind === DriverErrorKind.Serialization;
      if (!retryable || attempt >= MAX_ATTEMPTS) throw e;
      // Apart, so the transactions that deadlocked do not meet again at once.
      await sleep(Math.random() * 20 * attempt);
    }
  }
}
