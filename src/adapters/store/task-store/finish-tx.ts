/**
 * The locked transaction's statements that finish things — a task, a
 * referral, a tree — one operation per method (the rest, which insert, lock
 * and claim, are in task-tx.ts, whose TaskTx extends this). Each is one
 * conditional UPDATE whose affected-row count says who won, so two racing
 * transactions never both succeed; `markJoined` and `closeReferral`'s
 * `joined_at IS NULL` make a join happen once.
 */
import { sql, type Kysely, type Transaction } from "kysely";
import type { StatusCounts } from "../../../domain/completion.ts";
import type { Instance, ProcessState } from "../../../domain/instance.ts";
import type { Task } from "../../../domain/task.ts";
import type { CompletionPatch } from "../../../engine/human-tasks/task-store-port.ts";
import type { StoreSchema } from "../db-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { changeColumns, instanceFromRow, taskPatchToRow } from "../row-mapping.ts";
import type { TaskChange } from "../../../domain/task-event.ts";
import { lit, SqlReads } from "../sql-reads.ts";

/** A completed root is in process state 'closed'; referrals have no process state. */
const closedIfRoot = sql<
  string | null
>`case when ${sql.ref("process_state")} is null then null else 'closed' end`;

export class FinishTx extends SqlReads {
  constructor(
    protected readonly trx: Transaction<StoreSchema> | Kysely<StoreSchema>,
    parts: StoreDialect,
  ) {
    super(trx, parts);
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
    task: Pick<Task, "id" | "instanceId" | "status" | "claimedBy" | "assigneeKind" | "assigneeId">,
    patch: CompletionPatch,
    count: boolean,
  ): Promise<{ counts: StatusCounts | null } | undefined> {
    const set = taskPatchToRow(patch);
    const r = await this.trx
      .updateTable("tasks")
      .set(set)
      .where("tenant_id", "=", tenantId)
      .where("id", "=", task.id)
      .where("status", "=", task.status)
      .where("assignee_kind", "=", task.assigneeKind)
      .where("assignee_id", "=", task.assigneeId)
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
    change: TaskChange,
  ): Promise<number> {
    const r = await this.trx
      .updateTable("tasks")
      .set({ status: "cancelled", completed_at: change.at, ...changeColumns(change) })
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
