/**
 * The one Store implementation, over Kysely, for every backend. What differs
 * per database lives in dialects/*.ts as capability flags; this file only reads them.
 */
import type { Kysely } from "kysely";
import type { Instance } from "../../domain/instance.ts";
import { openTask, type Task } from "../../domain/task.ts";
import type { StatusCounts } from "../../domain/completion.ts";
import type {
  OneStatementCompletion,
  ReferralUnderRoot,
  Store,
  StoreTx,
} from "../../engine/ports.ts";
import type { StoreSchema } from "./db-schema.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { SqlReads } from "./sql-reads.ts";
import { instanceFromRow } from "./row-mapping.ts";
import * as statements from "./sql-store-statements.ts";
import { SqlStoreTx } from "./sql-store-tx.ts";

export class SqlStore extends SqlReads implements Store {
  readonly dialect: StoreDialectName;

  constructor(db: Kysely<StoreSchema>, parts: StoreDialect) {
    super(db, parts);
    this.dialect = parts.name;
  }

  /** Rolls back when fn throws and rethrows fn's own error, not a rollback failure. */
  async transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    const trx = await this.db.startTransaction().execute();
    try {
      const result = await fn(new SqlStoreTx(trx, this.parts));
      await trx.commit().execute();
      return result;
    } catch (error) {
      // After a failed COMMIT the server may already have rolled back; Kysely then
      // makes this a no-op. A rollback failure (dead connection) must not hide `error`.
      await trx
        .rollback()
        .execute()
        .catch(() => undefined);
      throw error;
    }
  }

  /** No BEGIN/COMMIT: each statement runs on whichever pooled connection is free. */
  autocommit<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> {
    return fn(new SqlStoreTx(this.db, this.parts));
  }

  async assignUnderRoot(a: ReferralUnderRoot): Promise<Instance | undefined> {
    if (this.parts.writableCte) return this.assignUnderRootInOneStatement(a);
    return this.transaction(async (tx) => {
      const root = await tx.lockRootForAssignment(a.tenantId, a.parentInstanceId);
      if (!root || root.status !== "running") return undefined;
      const { referral, tasks } = referralRows(a, root);
      await tx.insertReferral(referral, tasks);
      return root;
    });
  }

  /**
   * PostgreSQL: lock, state change and inserts in one autocommit statement.
   * The root's UPDATE is the row lock (it waits for a completion or another
   * assignment holding it, then re-checks `status = 'running'` on the latest
   * row version); the inserts select from its RETURNING, so without a running
   * root nothing is written. The tasks come from arrays, so the statement text
   * — and its prepared plan — is the same for any number of tasks.
   */
  private async assignUnderRootInOneStatement(a: ReferralUnderRoot): Promise<Instance | undefined> {
    const { rows } = await this.db.executeQuery(statements.assignUnderRoot(a));
    const row = rows[0];
    return row && instanceFromRow(row);
  }

  get completesInOneStatement(): boolean {
    return this.parts.writableCte === true;
  }

  /**
   * PostgreSQL. The order of the locks follows from what each part reads: `o`
   * cannot run before `r` (its condition reads `r`), `u` not before all of `o`
   * (it counts it), `c` not before `u`. So the root is locked first — the lock
   * order of every other path — then the referral's tasks, this one included,
   * in id order (FOR SHARE), then this task is written, then the referral. Id
   * order matters: the durable bridge cancels a referral's tasks in id order
   * without the root lock, and locking ours first and the others after could
   * deadlock with it. The statement's snapshot is taken before the root lock is
   * granted, so nothing here trusts a plain read of a row another completion may
   * have changed: the tasks are read with a locking read and the task and the
   * referral changed by UPDATEs, which under READ COMMITTED act on the latest
   * committed row version (re-checking their conditions on it). The referral's
   * tasks are all inserted with it, so none can be missing from the snapshot.
   * `c` is the join guard (`joined_at IS NULL`), as in closeReferral.
   */
  async completeInOneStatement(
    c: OneStatementCompletion,
  ): Promise<{ counts: StatusCounts; closed: boolean; joined: boolean } | undefined> {
    if (!this.completesInOneStatement) throw new Error("completeInOneStatement: PostgreSQL only");
    const { rows } = await this.db.executeQuery(statements.completeTask(c));
    const row = rows[0];
    if (!row || Number(row.updated) === 0) return undefined;
    const counts: StatusCounts = {
      open: Number(row.n_open),
      claimed: Number(row.n_claimed),
      done: Number(row.n_done),
      cancelled: Number(row.n_cancelled),
    };
    counts[c.patch.status] += 1;
    return { counts, closed: Number(row.closed) > 0, joined: Number(row.joined) > 0 };
  }
}

/** The rows `assignUnderRoot` writes, once the root is known. */
function referralRows(a: ReferralUnderRoot, root: Instance): { referral: Instance; tasks: Task[] } {
  const r = a.referral;
  const definitionKey = a.definition?.key ?? root.definitionKey;
  const referral: Instance = {
    ...r,
    tenantId: a.tenantId,
    kind: "referral",
    definitionId: a.definition?.id ?? root.definitionId,
    definitionKey,
    parentInstanceId: root.id,
    rootInstanceId: root.id,
    status: "running",
    processState: null,
    completedAt: null,
    joinedAt: null,
  };
  const tasks = a.tasks.map((t) =>
    openTask({
      ...t,
      tenantId: a.tenantId,
      instanceId: r.id,
      rootInstanceId: root.id,
      definitionKey,
      assignedBy: r.startedBy,
      createdAt: r.createdAt,
    }),
  );
  return { referral, tasks };
}
