/**
 * Opens a fence: one incomplete row, committed on its own (never inside the
 * writer's store transaction), so that every node sees it before the store
 * changes. The mutation id is generated here rather than by the caller so it
 * is unique by construction; the auto-increment id is read back from the
 * insert (RETURNING where it exists, the driver's insert id on MariaDB).
 */
import { randomUUID } from "node:crypto";
import type {
  CacheScope,
  MutationFence,
} from "../../../../engine/definition-cache/cache-ledger-port.ts";
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import { toNumber, type LedgerDb } from "../ledger-rows.ts";

export async function beginMutation(
  db: LedgerDb,
  parts: Pick<StoreDialect, "updateReturning">,
  scope: CacheScope,
  owner: string,
  now: number,
): Promise<MutationFence> {
  const mutationId = randomUUID();
  const id = await insertRow(db, parts, { mutationId, scope, owner, completed: 0, now });
  return { id, mutationId, scope, owner };
}

export interface LedgerRow {
  mutationId: string;
  scope: CacheScope;
  owner: string;
  completed: 0 | 1;
  now: number;
}

/** Inserts one ledger row; resolves with its id. Also used for completion's fresh row. */
export async function insertRow(
  db: LedgerDb,
  parts: Pick<StoreDialect, "updateReturning">,
  row: LedgerRow,
): Promise<number> {
  const insert = db.insertInto("cache_mutations").values({
    mutation_id: row.mutationId,
    scope: row.scope,
    owner_instance: row.owner,
    completed: row.completed,
    created_at: row.now,
  });
  if (parts.updateReturning) {
    const r = await insert.returning("id").executeTakeFirstOrThrow();
    return toNumber(r.id);
  }
  const r = await insert.executeTakeFirstOrThrow();
  return toNumber(r.insertId);
}
