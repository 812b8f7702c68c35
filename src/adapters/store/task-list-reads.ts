/**
 * The task lists beyond the open inbox (GET /v1/tasks?status=…): tasks of
 * assignees in id order, and finished tasks newest first. Same shape as the
 * inbox (sql-reads.ts): one index range per assignee, each already in the
 * page's order and cut at `n` rows, merged by the outer ORDER BY — so a page
 * reads at most (branches × n) index entries, however many tasks pile up.
 */
import type { Kysely, SelectQueryBuilder, Selectable } from "kysely";
import type { Task } from "../../domain/task.ts";
import type {
  AssignedTasksQuery,
  FinishedTasksQuery,
  TaskAssigneeKey,
} from "../../engine/human-tasks/task-store-port.ts";
import type { StoreSchema, TasksTable } from "./db-schema.ts";
import { taskFromRow } from "./row-mapping.ts";
import { lit, pageLimit } from "./sql-literals.ts";

type Branch = SelectQueryBuilder<StoreSchema, "tasks", Selectable<TasksTable>>;
type Db = Kysely<StoreSchema>;

/** A duplicate branch would return its tasks twice (UNION ALL). */
const distinct = (as: readonly TaskAssigneeKey[]) => [
  ...new Map(as.map((a) => [`${a.kind}:${a.id}`, a])).values(),
];

/** tasks_assignee_ix (any status) or tasks_finished_ix / tasks_inbox_ix (one status). */
export async function assignedTasks(db: Db, q: AssignedTasksQuery): Promise<Task[]> {
  const n = pageLimit(q.limit);
  const branches = distinct(q.assignees).map((a) =>
    db
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", q.tenantId)
      .where("assignee_kind", "=", a.kind)
      .where("assignee_id", "=", a.id)
      .$if(q.status !== undefined, (b) => b.where("status", "=", lit(q.status!)))
      .$if(q.after !== undefined, (b) => b.where("id", ">", q.after!))
      .orderBy("id")
      .limit(n),
  );
  return (await union(db, branches, n, "asc")).map(taskFromRow);
}

/**
 * Newest first by (completed_at, id): tasks_finished_ix per assignee, or
 * tasks_done_by_ix for one completer. The keyset bound is written as
 * `completed_at <= at and (completed_at < at or id < id)`: its first term is
 * a plain range every planner turns into an index bound.
 */
export async function finishedTasks(db: Db, q: FinishedTasksQuery): Promise<Task[]> {
  const n = pageLimit(q.limit);
  const base = () => {
    const b = db
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", q.tenantId)
      .where("status", "=", lit(q.status));
    const before = q.before;
    if (before === undefined) return b;
    return b
      .where("completed_at", "<=", before.at)
      .where((eb) => eb.or([eb("completed_at", "<", before.at), eb("id", "<", before.id)]));
  };
  const newestFirst = (b: Branch) =>
    b.orderBy("completed_at", "desc").orderBy("id", "desc").limit(n);
  const branches =
    q.completedBy !== undefined
      ? [newestFirst(base().where("completed_by", "=", q.completedBy))]
      : distinct(q.assignees ?? []).map((a) =>
          newestFirst(base().where("assignee_kind", "=", a.kind).where("assignee_id", "=", a.id)),
        );
  return (await union(db, branches, n, "desc")).map(taskFromRow);
}

/**
 * `SELECT * FROM (b1) b UNION ALL … ORDER BY … LIMIT n`; each branch in a
 * derived table, which keeps its own ORDER BY and LIMIT (a bare one before
 * UNION ALL is a syntax error on SQLite and PostgreSQL).
 */
async function union(
  db: Db,
  branches: Branch[],
  n: number,
  order: "asc" | "desc",
): Promise<Selectable<TasksTable>[]> {
  const [first, ...rest] = branches;
  if (first === undefined) return [];
  if (rest.length === 0) return await first.execute();
  const wrap = (b: Branch) => db.selectFrom(b.as("b")).selectAll();
  const all = rest.reduce((acc, b) => acc.unionAll(wrap(b)), wrap(first));
  const q = db.selectFrom(all.as("u")).selectAll();
  const ordered =
    order === "asc" ? q.orderBy("id") : q.orderBy("completed_at", "desc").orderBy("id", "desc");
  return await ordered.limit(n).execute();
}
