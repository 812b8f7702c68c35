/**
 * The locked transaction's statements (sql-task-store.ts) that insert, lock
 * and claim, one operation per method (those that finish a task, a referral or
 * a tree are in finish-tx.ts), over a Kysely transaction — or over the pool where a command is one
 * statement and each commits on its own. Transitions are single conditional
 * UPDATEs whose affected-row count says who won, so two racing transactions
 * can never both succeed even without a prior lock. Where a backend can save a
 * round trip (UPDATE … RETURNING, a writable CTE) a method says so; the
 * commands' semantics never depend on it.
 */
import { sql } from "kysely";
import type { Definition } from "../../../domain/definition.ts";
import type { Instance } from "../../../domain/instance.ts";
import type { Task, TaskStatus } from "../../../domain/task.ts";
import type { TaskChange, TaskEvent } from "../../../domain/task-event.ts";
import type { Handover } from "../../../domain/task-delegation.ts";
import {
  changeColumns,
  taskEventToRow,
  instanceFromRow,
  instanceToRow,
  taskFromRow,
  taskPatchToRow,
  taskToRow,
  type TaskPatch,
} from "../row-mapping.ts";
import { lit } from "../sql-reads.ts";
import { FinishTx } from "./finish-tx.ts";
import { ensureDefinition } from "../sql/ensure-definition.ts";

/** A root that gets its first referral leaves `notStarted`; anything else is kept. */
const openIfNotStarted = sql<
  string | null
>`case when ${sql.ref("status")} = 'running' and ${sql.ref(
  "process_state",
)} = 'notStarted' then 'open' else ${sql.ref("process_state")} end`;

export class TaskTx extends FinishTx {
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
    /** Every update that writes says what it is (`change`): its event in the trail (019). */
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

  /** See TaskStore.handOver: conditional on status, claimer and assignee as read. */
  async handOver(
    tenantId: string,
    task: Pick<Task, "id" | "status" | "claimedBy" | "assigneeKind" | "assigneeId">,
    handover: Handover,
    change: TaskChange,
  ): Promise<boolean> {
    const set = taskPatchToRow({
      ...handover,
      status: "open",
      claimedBy: null,
      claimedAt: null,
      change,
    });
    const r = await this.trx
      .updateTable("tasks")
      .set(set)
      .where("tenant_id", "=", tenantId)
      .where("id", "=", task.id)
      .where("status", "=", task.status)
      .where("assignee_kind", "=", task.assigneeKind)
      .where("assignee_id", "=", task.assigneeId)
      .$call((q) =>
        task.claimedBy === null
          ? q.where("claimed_by", "is", null)
          : q.where("claimed_by", "=", task.claimedBy),
      )
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }

  /** Appends an event the store writes itself (a comment); its seq. */
  async insertTaskEvent(tenantId: string, e: Omit<TaskEvent, "seq">): Promise<number> {
    const row = taskEventToRow(tenantId, e);
    if (this.parts.updateReturning) {
      const r = await this.trx
        .insertInto("task_events")
        .values(row)
        .returning("id")
        .executeTakeFirstOrThrow();
      return Number(r.id);
    }
    const r = await this.trx.insertInto("task_events").values(row).executeTakeFirstOrThrow();
    return Number(r.insertId);
  }

  /** Reopens the task only while it is claimed by `claimedBy`. True when it did. */
  async releaseTask(tenantId: string, id: string, claimedBy: string, at: number): Promise<boolean> {
    const change = { kind: "released" as const, by: claimedBy, at, reason: null };
    const r = await this.trx
      .updateTable("tasks")
      .set({ status: "open", claimed_by: null, claimed_at: null, ...changeColumns(change) })
      .where("tenant_id", "=", tenantId)
      .where("id", "=", id)
      .where("status", "=", lit("claimed"))
      .where("claimed_by", "=", claimedBy)
      .executeTakeFirst();
    return r.numUpdatedRows > 0n;
  }
}
