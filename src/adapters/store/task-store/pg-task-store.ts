/**
 * PostgreSQL: the REST cycle's commands as one autocommit statement each —
 * an assignment under a root, and a completion without `next` of a task whose
 * referral hangs under a root — with the same locks, in the same order, and
 * the same conditional writes as the locked transaction (sql-task-store.ts),
 * which still decides every case one statement cannot settle.
 *
 * TreeTurns (one completion statement per tree at a time in this process)
 * exists only to feed these statements, and so lives here.
 */
import type { StatusCounts } from "../../../domain/completion.ts";
import type { Instance } from "../../../domain/instance.ts";
import type {
  AssignUnderRoot,
  CompletionOutcome,
  CompletionPlan,
} from "../../../engine/human-tasks/task-store-port.ts";
import { instanceFromRow } from "../row-mapping.ts";
import { assignUnderRoot } from "./sql/assign-under-root.ts";
import { completeTask } from "./sql/complete-task.ts";
import { referralRows, SqlTaskStore } from "./sql-task-store.ts";
import { TreeTurns } from "./tree-turns.ts";

export class PgTaskStore extends SqlTaskStore {
  private readonly turns = new TreeTurns();

  /**
   * The root's UPDATE is the row lock (it waits for a completion or another
   * assignment holding it, then re-checks `status = 'running'` on the latest
   * row version); the inserts select from its RETURNING, so without a running
   * root nothing is written.
   */
  override async assign(plan: AssignUnderRoot): Promise<Instance | undefined> {
    const { rows } = await this.db.executeQuery(assignUnderRoot(plan));
    const root = rows[0] && instanceFromRow(rows[0]);
    if (root) this.remember(referralRows(plan, root)); // committed by now
    return root;
  }

  /**
   * One statement unless the plan has `next` or the referral is its own root;
   * when it writes nothing (the task changed since it was read, or a join met
   * a completed root) the locked transaction decides, with its usual answers.
   */
  override async complete(plan: CompletionPlan): Promise<CompletionOutcome> {
    const { tenantId, task } = plan;
    if (plan.next !== null || task.instanceId === task.rootInstanceId) {
      return this.remembered(plan, await this.completeLocked(plan));
    }
    const { rows } = await this.turns.run(tenantId, task.rootInstanceId, () =>
      this.db.executeQuery(completeTask(plan)),
    );
    const row = rows[0];
    if (!row || Number(row.updated) === 0)
      return this.remembered(plan, await this.completeLocked(plan));
    const counts: StatusCounts = {
      open: Number(row.n_open),
      claimed: Number(row.n_claimed),
      done: Number(row.n_done),
      cancelled: Number(row.n_cancelled),
    };
    counts[plan.patch.status] += 1;
    let closed = Number(row.closed) > 0;
    let joined = Number(row.joined) > 0;
    if (counts.open === 0 && counts.claimed === 0 && !closed) {
      // The referral was already completed or joined before its last task finished —
      // no path of the engine leaves it so. The task is done (committed); close the
      // referral step by step as the locked transaction would, under the root lock.
      joined = await this.transaction(async (tx) => {
        const root = await tx.lockRootOf(tenantId, { taskId: task.id });
        const c = await tx.closeReferral(tenantId, task.instanceId, plan.patch.completedAt!);
        if (!root || !c?.joined || !plan.join || root.status !== "running") return false;
        await tx.insertReferral(plan.join.referral, plan.join.tasks);
        return true;
      });
      closed = true;
    }
    return this.remembered(plan, { written: true, counts, closed, joined });
  }
}
