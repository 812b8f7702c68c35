/**
 * StoreReads over any Kysely handle — the pool for Store, a transaction for
 * StoreTx, so reads through a StoreTx see that transaction's own writes.
 * Every query filters by tenant_id first: it leads every index and every key.
 */
import { sql, type Kysely, type SelectQueryBuilder, type Selectable } from "kysely";
import type { StatusCounts } from "../../domain/completion.ts";
import type { Definition } from "../../domain/definition.ts";
import { ProcessStates, type Instance, type ProcessState } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import type {
  AssignedTasksQuery,
  FinishedTasksQuery,
  InboxQuery,
  PageQuery,
  ProcessQuery,
  StoreReads,
  TaskEventQuery,
} from "../../engine/human-tasks/task-store-port.ts";
import type { TaskEvent } from "../../domain/task-event.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import type { StoreSchema, TasksTable } from "./db-schema.ts";
import { lit, pageLimit } from "./sql-literals.ts";
import * as taskLists from "./task-list-reads.ts";
import {
  definitionFromRow,
  instanceFromPrefixedRow,
  instanceFromRow,
  INSTANCE_COLUMNS_AS,
  taskEventFromRow,
  taskFromRow,
} from "./row-mapping.ts";

export { lit, pageLimit } from "./sql-literals.ts";

type TaskBranch = SelectQueryBuilder<StoreSchema, "tasks", Selectable<TasksTable>>;

export class SqlReads implements StoreReads {
  constructor(
    protected readonly db: Kysely<StoreSchema>,
    protected readonly parts: StoreDialect,
  ) {}

  async getDefinition(tenantId: string, key: string): Promise<Definition | undefined> {
    const row = await this.db
      .selectFrom("definitions")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("key", "=", key)
      .executeTakeFirst();
    return row && definitionFromRow(row);
  }

  async listDefinitions(tenantId: string, page: PageQuery): Promise<Definition[]> {
    const rows = await this.db
      .selectFrom("definitions")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .$if(page.after !== undefined, (q) => q.where("id", ">", page.after!))
      .orderBy("id")
      .limit(pageLimit(page.limit))
      .execute();
    return rows.map(definitionFromRow);
  }

  async getInstance(tenantId: string, id: string): Promise<Instance | undefined> {
    const row = await this.db
      .selectFrom("instances")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && instanceFromRow(row);
  }

  async listChildren(tenantId: string, parentId: string): Promise<Instance[]> {
    const rows = await this.db
      .selectFrom("instances")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("parent_instance_id", "=", parentId)
      .orderBy("id")
      .execute();
    return rows.map(instanceFromRow);
  }

  async getTask(tenantId: string, id: string): Promise<Task | undefined> {
    const row = await this.db
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .executeTakeFirst();
    return row && taskFromRow(row);
  }

  async getTaskWithInstance(
    tenantId: string,
    taskId: string,
  ): Promise<{ task: Task; instance: Instance } | undefined> {
    const { rows } = await sql<Selectable<TasksTable> & Record<string, unknown>>`
      select t.*, ${INSTANCE_COLUMNS_AS} from tasks t
      join instances r on r.tenant_id = t.tenant_id and r.id = t.instance_id
      where t.tenant_id = ${tenantId} and t.id = ${taskId}`.execute(this.db);
    const row = rows[0];
    return row && { task: taskFromRow(row), instance: instanceFromPrefixedRow(row) };
  }

  async listTasksOfInstance(tenantId: string, instanceId: string): Promise<Task[]> {
    const rows = await this.db
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("instance_id", "=", instanceId)
      .orderBy("id")
      .execute();
    return rows.map(taskFromRow);
  }

  async countTasksByStatus(tenantId: string, instanceId: string): Promise<StatusCounts> {
    const rows = await this.db
      .selectFrom("tasks")
      .select(["status", (eb) => eb.fn.countAll().as("n")])
      .where("tenant_id", "=", tenantId)
      .where("instance_id", "=", instanceId)
      .groupBy("status")
      .execute();
    const counts: StatusCounts = { open: 0, claimed: 0, done: 0, cancelled: 0 };
    // COUNT is BIGINT: a string from pg, a number from mysql2 and SQLite.
    for (const r of rows) counts[r.status as keyof StatusCounts] = Number(r.n);
    return counts;
  }

  /**
   * Why a UNION ALL of one branch per assignee instead of one
   * `WHERE (kind, id) IN (…) ORDER BY id`: the IN form reads every open task of
   * every assignee and sorts them before it can return the first page — a user
   * in 20 groups with 1,000 open tasks each sorts 20,000 rows to show 50. Each
   * branch here is a range scan of tasks_inbox_open_ix (tenant, kind, assignee,
   * [status,] id) that is already in id order and stops after `n` entries, so
   * the whole page reads at most (branches × n) index entries and the outer
   * ORDER BY merges pre-sorted streams (a Merge Append on PostgreSQL).
   * The claimed branch (status 'claimed') is disjoint from the open branches,
   * so UNION ALL never returns a task twice.
   */
  async inbox(q: InboxQuery): Promise<Task[]> {
    if (this.parts.lateralUnnest) return this.inboxLateral(q);
    const n = pageLimit(q.limit);
    const seen = new Set<string>();
    const branches: TaskBranch[] = [];
    for (const a of q.assignees) {
      const k = `${a.kind}:${a.id}`;
      if (seen.has(k)) continue; // a duplicate branch would duplicate its tasks
      seen.add(k);
      branches.push(
        this.taskPage(q.tenantId, q.after, n)
          .where("status", "=", lit("open"))
          .where("assignee_kind", "=", a.kind)
          .where("assignee_id", "=", a.id),
      );
    }
    if (q.claimedBy !== undefined) {
      branches.push(
        this.taskPage(q.tenantId, q.after, n)
          .where("status", "=", lit("claimed"))
          .where("claimed_by", "=", q.claimedBy),
      );
    }
    const rows = await this.orderedUnion(branches, n);
    return rows.map(taskFromRow);
  }

  /**
   * PostgreSQL: the same per-assignee index ranges as the UNION ALL, but as a
   * LATERAL subquery over an array of assignees, so the statement text and its
   * planning cost do not grow with the number of groups. Measured on 1,000,000
   * tasks with a user in 20 groups (`npm run bench -- tasks postgres`).
   */
  private async inboxLateral(q: InboxQuery): Promise<Task[]> {
    const n = pageLimit(q.limit);
    const unique = [...new Map(q.assignees.map((a) => [`${a.kind}:${a.id}`, a])).values()];
    const after = q.after === undefined ? sql`` : sql`and id > ${q.after}`;
    const claimed =
      q.claimedBy === undefined
        ? sql``
        : sql`union all (select * from tasks where tenant_id = ${q.tenantId} and status = 'claimed'
            and claimed_by = ${q.claimedBy} ${after} order by id limit ${n})`;
    const { rows } = await sql<Selectable<TasksTable>>`
      select * from (
        (select t.* from unnest(${unique.map((a) => a.kind)}::text[], ${unique.map((a) => a.id)}::text[]) as a(kind, aid)
          cross join lateral (
            select * from tasks where tenant_id = ${q.tenantId} and status = 'open'
              and assignee_kind = a.kind and assignee_id = a.aid ${after}
            order by id limit ${n}) t)
        ${claimed}
      ) u order by id limit ${n}`.execute(this.db);
    return rows.map(taskFromRow);
  }

  assignedTasks(q: AssignedTasksQuery): Promise<Task[]> {
    return taskLists.assignedTasks(this.db, q);
  }

  finishedTasks(q: FinishedTasksQuery): Promise<Task[]> {
    return taskLists.finishedTasks(this.db, q);
  }

  /**
   * Same shape as the inbox: without a state filter, one index range per state, merged.
   * The creation window is checked on the rows of those ranges, with no index of its own:
   * the ranges are one user's processes, so a page reads at most that user's processes
   * (a few hundred for most users; for a starter of 100,000 processes a narrow window reads
   * up to all 100,000 entries — bearable for a per-user list, while an index of its own would
   * cost every instance insert, referrals included).
   */
  async completedInProcess(
    tenantId: string,
    rootInstanceId: string,
    userId: string,
    exceptTaskId: string,
  ): Promise<boolean> {
    const row = await this.db
      .selectFrom("tasks")
      .select("id")
      .where("tenant_id", "=", tenantId)
      .where("root_instance_id", "=", rootInstanceId)
      .where("completed_by", "=", userId)
      .where("status", "=", lit("done"))
      .where("id", "<>", exceptTaskId)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async listTaskEvents(q: TaskEventQuery): Promise<TaskEvent[]> {
    const rows = await this.db
      .selectFrom("task_events")
      .selectAll()
      .where("tenant_id", "=", q.tenantId)
      .$if(q.taskId !== undefined, (b) => b.where("task_id", "=", q.taskId!))
      .$if(q.rootInstanceId !== undefined, (b) =>
        b.where("root_instance_id", "=", q.rootInstanceId!),
      )
      .$if(q.afterSeq !== undefined, (b) => b.where("id", ">", q.afterSeq!))
      .orderBy("id")
      .limit(pageLimit(q.limit))
      .execute();
    return rows.map(taskEventFromRow);
  }

  async listProcesses(q: ProcessQuery): Promise<Instance[]> {
    const n = pageLimit(q.limit);
    const states: readonly ProcessState[] = q.state === undefined ? ProcessStates : [q.state];
    const branches = states.map((state) =>
      this.db
        .selectFrom("instances")
        .selectAll()
        .where("tenant_id", "=", q.tenantId)
        .where("started_by", "=", q.startedBy)
        .where("process_state", "=", lit(state))
        .where("kind", "=", lit("process"))
        .where("parent_instance_id", "is", null)
        .$if(q.createdFrom !== undefined, (b) => b.where("created_at", ">=", q.createdFrom!))
        .$if(q.createdUntil !== undefined, (b) => b.where("created_at", "<", q.createdUntil!))
        .$if(q.after !== undefined, (b) => b.where("id", ">", q.after!))
        .orderBy("id")
        .limit(n),
    );
    const rows = await this.orderedUnion(branches, n);
    return rows.map(instanceFromRow);
  }

  private taskPage(tenantId: string, after: string | undefined, n: number): TaskBranch {
    return this.db
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .$if(after !== undefined, (b) => b.where("id", ">", after!))
      .orderBy("id")
      .limit(n);
  }

  /**
   * `SELECT * FROM (b1) b UNION ALL SELECT * FROM (b2) b … ORDER BY id LIMIT n`.
   * Each branch is wrapped in a derived table because a bare
   * `… ORDER BY … LIMIT … UNION ALL …` is a syntax error on SQLite and
   * PostgreSQL; the derived table keeps each branch's own ORDER BY and LIMIT.
   */
  private async orderedUnion<O extends { id: string }>(
    branches: SelectQueryBuilder<StoreSchema, keyof StoreSchema, O>[],
    n: number,
  ): Promise<O[]> {
    const [first, ...rest] = branches;
    if (first === undefined) return [];
    if (rest.length === 0) return await first.execute();
    const wrap = (b: SelectQueryBuilder<StoreSchema, keyof StoreSchema, O>) =>
      this.db.selectFrom(b.as("b")).selectAll();
    const union = rest.reduce((acc, b) => acc.unionAll(wrap(b)), wrap(first));
    const rows = await this.db
      .selectFrom(union.as("u"))
      .selectAll()
      .orderBy("id")
      .limit(n)
      .execute();
    return rows as O[];
  }
}
