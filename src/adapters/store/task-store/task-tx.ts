/**
 * The locked transaction's statements (sql-task-store.ts), one operation per
 * method, over a Kysely transaction — or over the pool where a command is one
 * statement and each commits on its own. Transitions are single conditional
 * UPDATEs whose affected-row count says who won, so two racing transactions
 * can never both succeed even without a prior lock. Where a backend can save a
 * round trip (UPDATE … RETURNING, a writable CTE) a method says so; the
 * commands' semantics never depend on it.
 */
import { sql, type Kysely, type Transaction } from "kysely";
import type { StatusCounts } from "../../../domain/completion.ts";
import type { Definition } from "../../../domain/definition.ts";
import type { Instance, ProcessState } from "../../../domain/instance.ts";
import type { Task, TaskStatus } from "../../../domain/task.ts";
import type { StoreTx } from "../../../engine/ports.ts";
import type { StoreSchema } from "../db-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import {
  instanceFromRow,
  instanceToRow,
  taskFromRow,
  taskPatchToRow,
  taskToRow,
  type TaskPatch,
} from "../row-mapping.ts";
import { lit, SqlReads } from "../sql-reads.ts";
import { ensureDefinition } from "../sql/ensure-definition.ts";

/** A completed root is in process state 'closed'; referrals have no process state. */
const closedIfRoot = sql<
  string | null
>`case when ${sql.ref("process_state")} is null then null else 'closed' end`;

/** A root that gets its first referral leaves `notStarted`; anything else is kept. */
const openIfNotStarted = sql<
  string | null
>`case when ${sql.ref("status")} = 'running' and ${sql.ref(
  "process_state",
)} = 'notStarted' then 'open' else ${sql.ref("process_state")} end`;

export class TaskTx extends SqlReads implements StoreTx {
  constructor(
    private readonly trx: Transaction<StoreSchema> | Kysely<StoreSchema>,
    parts: StoreDialect,
  ) {
    super(trx, parts);
  }

  /** See sql/ensure-definition.ts. */
  ensureDefinition(d: Definition): Promise<Definition> {
    return ensureDefinition(this.trx, this.parts, d);
  }

  async insertInstance(i: Instance): Promise<void> {
    await this.trx.insertInto("instances").values(instanceToRow(i)).execute();
  }

  async insertTasks(tasks: Task[]): Promise<void> {
    // One multi-row INSERT: MAX_USERS_PER_ASSIGNMENT (100) × 15 columns = 1,500
    // parameters, far below SQLite's 32,766 and PostgreSQL's 65,535.
    if (tasks.length === 0) return;
    await this.trx.insertInto("tasks").values(tasks.map(taskToRow)).execute();
  }

  async lockInstance(tenantId: string, id: string): Promise<Instance | undefined> {
    const row = await this.trx
      .selectFrom("instances")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .$if(this.parts.rowLocks, (q) => q.forUpdate())
      .executeTakeFirst();
    return row && instanceFromRow(row);
  }

  /**
   * One round trip instead of two (read the child, then lock its root): the
   * subquery only reads, so only the root row is locked — never the child,
   * which would break the root-first lock order.
   */
  async lockRootOf(
    tenantId: string,
    of: { taskId: string } | { instanceId: string },
  ): Promise<Instance | undefined> {
    const row = await this.trx
      .selectFrom("instances")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", (eb) =>
        "taskId" in of
          ? eb
              .selectFrom("tasks")
              .select("root_instance_id")
              .where("tenant_id", "=", tenantId)
              .where("id", "=", of.taskId)
          : eb
              .selectFrom("instances as child")
              .select("child.root_instance_id")
              .where("child.tenant_id", "=", tenantId)
              .where("child.id", "=", of.instanceId),
      )
      .$if(this.parts.rowLocks, (q) => q.forUpdate())
      .executeTakeFirst();
    return row && instanceFromRow(row);
  }

  async lockTask(tenantId: string, id: string): Promise<Task | undefined> {
    const row = await this.trx
      .selectFrom("tasks")
      .selectAll()
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .$if(this.parts.rowLocks, (q) => q.forUpdate())
      .executeTakeFirst();
    return row && taskFromRow(row);
  }

  /**
   * With UPDATE … RETURNING the write is the lock: an UPDATE row-locks the root
   * (FOR NO KEY UPDATE, which conflicts with the FOR UPDATE of a completion and
   * with another assignment's UPDATE), so assignments and completions in one tree
   * are still serialised on the root row.
   */
  async lockRootForAssignment(tenantId: string, instanceId: string): Promise<Instance | undefined> {
    if (this.parts.updateReturning) {
      const row = await this.trx
        .updateTable("instances")
        .set({ process_state: openIfNotStarted })
        .where("tenant_id", "=", tenantId)
        .where("id", "=", (eb) =>
          eb
            .selectFrom("instances as child")
            .select("child.root_instance_id")
            .where("child.tenant_id", "=", tenantId)
            .where("child.id", "=", instanceId),
        )
        .returningAll()
        .executeTakeFirst();
      return row && instanceFromRow(row);
    }
    const root = await this.lockRootOf(tenantId, { instanceId });
    if (!root || root.status !== "running" || root.processState !== "notStarted") return root;
    await this.setProcessState(tenantId, root.id, "open");
    return { ...root, processState: "open" };
  }

  /**
   * Conditional write for a completion: applies `patch` only while the task's
   * status is still `task.status` and — when that is `claimed` — its claimer is
   * still `task.claimedBy`. Undefined when the condition failed. With `count`,
   * also the task counts of its instance after the write (read after it, under
   * the caller's root lock), else `counts` is null.
   */
  async completeTask(
    tenantId: string,
    task: Pick<Task, "id" | "instanceId" | "status" | "claimedBy">,
    patch: Pick<Task, "status" | "completedBy" | "completedAt" | "vars">,
    count: boolean,
  ): Promise<{ counts: StatusCounts | null } | undefined> {
    const set = taskPatchToRow(patch);
    const r = await this.trx
      .updateTable("tasks")
      .set(set)
      .where("tenant_id", "=", tenantId)
      .where("id", "=", task.id)
      .where("status", "=", task.status)
      .$if(task.status === "claimed", (q) =>
        task.claimedBy === null
          ? q.where("claimed_by", "is", null)
          : q.where("claimed_by", "=", task.claimedBy),
      )
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) return undefined;
    return { counts: count ? await this.countTasksByStatus(tenantId, task.instanceId) : null };
  }

  /**
   * The usual case is one write: the referral goes from running to completed
   * and, if it has an onAllCompleted, takes joined_at in the same UPDATE — the
   * `joined_at IS NULL` condition is what makes the join happen once. Anything
   * else (already completed, already joined) takes the step-by-step path.
   */
  async closeReferral(
    tenantId: string,
    referralId: string,
    at: number,
  ): Promise<{ referral: Instance; joined: boolean } | undefined> {
    const update = this.trx
      .updateTable("instances")
      .set({
        status: "completed",
        completed_at: at,
        process_state: closedIfRoot,
        joined_at: sql<number>`case when ${sql.ref("on_all_completed")} is null then ${sql.ref("joined_at")} else ${at} end`,
      })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", referralId)
      .where("status", "<>", lit("completed"))
      .where("joined_at", "is", null);
    if (this.parts.updateReturning) {
      const row = await update.returningAll().executeTakeFirst();
      if (row) return { referral: instanceFromRow(row), joined: row.on_all_completed !== null };
    } else if ((await update.executeTakeFirst()).numUpdatedRows > 0n) {
      const referral = await this.getInstance(tenantId, referralId);
      return referral && { referral, joined: referral.onAllCompleted !== null };
    }
    await this.completeInstance(tenantId, referralId, at);
    const referral = await this.getInstance(tenantId, referralId);
    if (!referral) return undefined;
    const joined =
      referral.onAllCompleted !== null && (await this.markJoined(tenantId, referralId, at));
    return { referral: joined ? { ...referral, joinedAt: at } : referral, joined };
  }

  /** PostgreSQL: `WITH i AS (INSERT INTO instances …) INSERT INTO tasks …`, one round trip. */
  async insertReferral(referral: Instance, tasks: Task[]): Promise<void> {
    if (!this.parts.writableCte || tasks.length === 0) {
      await this.insertInstance(referral);
      await this.insertTasks(tasks);
      return;
    }
    await this.trx
      .with("i", (db) => db.insertInto("instances").values(instanceToRow(referral)))
      .insertInto("tasks")
      .values(tasks.map(taskToRow))
      .execute();
  }

  async updateTask(
    tenantId: string,
    id: string,
    from: readonly TaskStatus[],
    patch: TaskPatch,
  ): Promise<boolean> {
    if (from.length === 0) return false;
    const set = taskPatchToRow(patch);
    if (Object.keys(set).length === 0) {
      // Nothing to write: answer whether the condition holds, under the same lock a write would take.
      const t = await this.lockTask(tenantId, id);
      return t !== undefined && from.includes(t.status);
    }
    const r = await this.trx
      .updateTable("tasks")
      .set(set)
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .where("status", "in", [...from])
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Reopens the task only while it is claimed by `claimedBy`. True when it did. */
  async releaseTask(tenantId: string, id: string, claimedBy: string): Promise<boolean> {
    const r = await this.trx
      .updateTable("tasks")
      .set({ status: "open", claimed_by: null, claimed_at: null })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .where("status", "=", lit("claimed"))
      .where("claimed_by", "=", claimedBy)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  async completeInstance(tenantId: string, id: string, at: number): Promise<void> {
    await this.trx
      .updateTable("instances")
      .set({ status: "completed", completed_at: at, process_state: closedIfRoot })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .where("status", "<>", lit("completed"))
      .execute();
  }

  async setProcessState(tenantId: string, rootId: string, state: ProcessState): Promise<void> {
    await this.trx
      .updateTable("instances")
      .set({ process_state: state })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", rootId)
      .execute();
  }

  async markJoined(tenantId: string, instanceId: string, at: number): Promise<boolean> {
    const r = await this.trx
      .updateTable("instances")
      .set({ joined_at: at })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", instanceId)
      .where("joined_at", "is", null)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** A cancelled task is finished: completed_at records when (completed_by stays null). */
  async cancelOpenTasksOfRoot(
    tenantId: string,
    rootId: string,
    exceptTaskId: string,
    at: number,
  ): Promise<number> {
    const r = await this.trx
      .updateTable("tasks")
      .set({ status: "cancelled", completed_at: at })
      .where("tenant_id", "=", tenantId)
      .where("root_instance_id", "=", rootId)
      .where("status", "in", [lit("open"), lit("claimed")])
      .where("id", "<>", exceptTaskId)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  async completeTree(tenantId: string, rootId: string, at: number): Promise<void> {
    // A root's root_instance_id is itself, so this covers the root too; already
    // completed instances keep their completed_at.
    await this.trx
      .updateTable("instances")
      .set({ status: "completed", completed_at: at, process_state: closedIfRoot })
      .where("tenant_id", "=", tenantId)
      .where("root_instance_id", "=", rootId)
      .where("status", "<>", lit("completed"))
      .execute();
    // The root may have been completed earlier without its process state closed.
    await this.setProcessState(tenantId, rootId, "closed");
  }
}
