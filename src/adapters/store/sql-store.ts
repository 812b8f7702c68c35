/**
 * The one Store implementation, over Kysely, for every backend. What differs
 * per database lives in dialects/*.ts as capability flags; this file only reads them.
 */
import { Kysely, Migrator, sql, type Selectable } from "kysely";
import type { Instance } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import type { ReferralUnderRoot, Store, StoreTx } from "../../engine/ports.ts";
import type { InstancesTable, StoreSchema } from "./db-schema.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { migrationProvider } from "./migrations/migration-provider.ts";
import { SqlRunStore } from "./run-store/sql-run-store.ts";
import { SqlReads } from "./sql-reads.ts";
import { instanceFromRow } from "./row-mapping.ts";
import { SqlStoreTx } from "./sql-store-tx.ts";

export class SqlStore extends SqlReads implements Store {
  readonly dialect: StoreDialectName;

  constructor(parts: StoreDialect) {
    // Kysely opens no connection until the first query: a bad host fails in migrate().
    super(new Kysely<StoreSchema>({ dialect: parts.kysely }), parts);
    this.dialect = parts.name;
  }

  /**
   * Forward-only migrations with Kysely's Migrator, which holds a database-wide
   * lock while it applies them (pg_advisory_lock on PostgreSQL, GET_LOCK on
   * MariaDB, BEGIN IMMEDIATE on SQLite — see dialects/sqlite.ts): when several
   * nodes start at once, one migrates and the others find nothing pending.
   */
  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider(this.parts) });
    const { error } = await migrator.migrateToLatest();
    if (error !== undefined) {
      throw new Error(
        `DATABASE_URL ${this.parts.target}: cannot migrate the database: ${describeError(error)}`,
        { cause: error },
      );
    }
  }

  private runs: SqlRunStore | undefined;

  /** The durable runs' store over the same pool (on SQLite: the same connection). */
  runStore(): SqlRunStore {
    return (this.runs ??= new SqlRunStore(this.db, this.parts));
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
    const r = a.referral;
    const oac = r.onAllCompleted === null ? null : JSON.stringify(r.onAllCompleted);
    const { rows } = await sql<Selectable<InstancesTable>>`
      with r as (
        update instances set process_state =
          case when process_state = 'notStarted' then 'open' else process_state end
        where tenant_id = ${a.tenantId} and status = 'running'
          and id = (select c.root_instance_id from instances c
                    where c.tenant_id = ${a.tenantId} and c.id = ${a.parentInstanceId})
        returning *
      ), i as (
        insert into instances (tenant_id, id, kind, definition_id, definition_key,
          parent_instance_id, root_instance_id, status, vars, started_by, created_at,
          on_all_completed)
        select r.tenant_id, ${r.id}::text, 'referral',
          coalesce(${a.definition?.id ?? null}::text, r.definition_id),
          coalesce(${a.definition?.key ?? null}::text, r.definition_key),
          r.id, r.id, 'running', ${JSON.stringify(r.vars)}::text, ${r.startedBy}::text,
          ${r.createdAt}::bigint, ${oac}::text
        from r
        returning tenant_id, id, root_instance_id, definition_key, started_by, created_at
      ), t as (
        insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
          assignee_kind, assignee_id, assigned_by, status, created_at)
        select i.tenant_id, v.id, i.id, i.root_instance_id, i.definition_key,
          v.kind, v.aid, i.started_by, 'open', i.created_at
        from i cross join unnest(${a.tasks.map((t) => t.id)}::text[],
          ${a.tasks.map((t) => t.assigneeKind)}::text[],
          ${a.tasks.map((t) => t.assigneeId)}::text[]) as v(id, kind, aid)
      )
      select * from r`.execute(this.db);
    const row = rows[0];
    return row && instanceFromRow(row);
  }

  async close(): Promise<void> {
    await this.db.destroy();
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
  const tasks = a.tasks.map((t): Task => ({
    ...t,
    tenantId: a.tenantId,
    instanceId: r.id,
    rootInstanceId: root.id,
    definitionKey,
    assignedBy: r.startedBy,
    status: "open",
    claimedBy: null,
    claimedAt: null,
    completedBy: null,
    completedAt: null,
    vars: null,
    createdAt: r.createdAt,
  }));
  return { referral, tasks };
}

/**
 * pg reports "connect to localhost" failures as an AggregateError (one per
 * resolved address: ::1 and 127.0.0.1) whose own message is empty.
 */
function describeError(error: unknown): string {
  if (error instanceof AggregateError) {
    const inner = error.errors.map(describeError);
    return [...new Set(inner)].join("; ") || "connection failed";
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (error.message !== "") return error.message;
    return typeof code === "string" ? code : error.name;
  }
  return String(error);
}
