/**
 * The one Store implementation, over Kysely, for every backend. What differs
 * per database lives in dialects/*.ts as capability flags; this file only reads them.
 */
import { Kysely, Migrator, sql, type Selectable } from "kysely";
import type { Instance } from "../../domain/instance.ts";
import { openTask, type Task } from "../../domain/task.ts";
import type { StatusCounts } from "../../domain/completion.ts";
import type {
  OneStatementCompletion,
  ReferralUnderRoot,
  Store,
  StoreTx,
} from "../../engine/ports.ts";
import type { InstancesTable, StoreSchema } from "./db-schema.ts";
import type { StoreDialect, StoreDialectName } from "./dialects/store-dialect.ts";
import { migrationProvider } from "./migrations/migration-provider.ts";
import { SqlRunStore } from "./run-store/sql-run-store.ts";
import { SqlReads } from "./sql-reads.ts";
import { instanceFromRow, instanceToRow, taskPatchToRow } from "./row-mapping.ts";
import { SqlStoreTx } from "./sql-store-tx.ts";
import { startStatsKeeper, type StatsKeeper } from "./pg-stats-keeper.ts";

export class SqlStore extends SqlReads implements Store {
  readonly dialect: StoreDialectName;
  private statsKeeper: StatsKeeper | undefined;

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
    // The tables exist now; young tables need statistics sooner than autovacuum gives them.
    if (this.parts.name === "postgres" && this.statsKeeper === undefined) {
      this.statsKeeper = startStatsKeeper(this.db as Kysely<unknown>);
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
    const t = c.task;
    const p = taskPatchToRow(c.patch);
    const claimer =
      t.status !== "claimed"
        ? sql``
        : t.claimedBy === null
          ? sql` and claimed_by is null`
          : sql` and claimed_by = ${t.claimedBy}`;
    const running = c.requireRunningRoot ? sql` and r.status = 'running'` : sql``;
    const j = c.join;
    const jr = j && instanceToRow(j.referral);
    const jt = j ? j.tasks : [];
    const { rows } = await sql<{
      updated: number | string;
      n_open: number | string;
      n_claimed: number | string;
      n_done: number | string;
      n_cancelled: number | string;
      closed: number | string;
      joined: number | string;
    }>`
      with r as (
        select id, status from instances
        where tenant_id = ${c.tenantId} and id = ${t.rootInstanceId}
        for update
      ), o as (
        select id, status from tasks
        where tenant_id = ${c.tenantId} and instance_id = ${t.instanceId}
          and exists (select 1 from r)
        order by id
        for share
      ), u as (
        update tasks set status = ${p.status}, completed_by = ${p.completed_by},
          completed_at = ${p.completed_at}, vars = ${p.vars}
        where tenant_id = ${c.tenantId} and id = ${t.id} and status = ${t.status}${claimer}
          and (select count(*) from o) > 0
          and exists (select 1 from r where true${running})
        returning id
      ), n as (
        select
          count(*) filter (where status = 'open') as n_open,
          count(*) filter (where status = 'claimed') as n_claimed,
          count(*) filter (where status = 'done') as n_done,
          count(*) filter (where status = 'cancelled') as n_cancelled
        from o where id <> ${t.id}
      ), c as (
        update instances set status = 'completed', completed_at = ${p.completed_at},
          process_state = case when process_state is null then null else 'closed' end,
          joined_at = case when on_all_completed is null then joined_at
                      else ${p.completed_at} end
        where tenant_id = ${c.tenantId} and id = ${t.instanceId}
          and status <> 'completed' and joined_at is null
          and exists (select 1 from u)
          and (select n_open + n_claimed from n) = 0
        returning on_all_completed
      ), ji as (
        insert into instances (tenant_id, id, kind, definition_id, definition_key,
          parent_instance_id, root_instance_id, status, vars, started_by, created_at,
          on_all_completed)
        select ${c.tenantId}::text, ${jr?.id ?? null}::text, 'referral',
          ${jr?.definition_id ?? null}::text, ${jr?.definition_key ?? null}::text,
          ${jr?.parent_instance_id ?? null}::text, ${jr?.root_instance_id ?? null}::text,
          'running', ${jr?.vars ?? null}::text, ${jr?.started_by ?? null}::text,
          ${jr?.created_at ?? null}::bigint, ${jr?.on_all_completed ?? null}::text
        from c where c.on_all_completed is not null and ${j !== null}::boolean
        returning id
      ), jt as (
        insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
          assignee_kind, assignee_id, assigned_by, status, created_at)
        select ${c.tenantId}::text, v.id, ji.id, v.root, v.dkey, v.kind, v.aid, v.aby, 'open', v.at
        from ji cross join unnest(${jt.map((x) => x.id)}::text[],
          ${jt.map((x) => x.rootInstanceId)}::text[], ${jt.map((x) => x.definitionKey)}::text[],
          ${jt.map((x) => x.assigneeKind)}::text[], ${jt.map((x) => x.assigneeId)}::text[],
          ${jt.map((x) => x.assignedBy)}::text[], ${jt.map((x) => x.createdAt)}::bigint[])
          as v(id, root, dkey, kind, aid, aby, at)
      )
      select (select count(*) from u) as updated, n.*,
        (select count(*) from c) as closed, (select count(*) from ji) as joined
      from n`.execute(this.db);
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

  async close(): Promise<void> {
    this.statsKeeper?.stop();
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
