/**
 * The human-task store over Kysely, every command as a locked transaction —
 * the strategy for MariaDB and SQLite, and PostgreSQL's fallback where one
 * statement cannot settle a case (see pg-task-store.ts).
 *
 * Lock order everywhere: the root of the tree, then its rows. Completions,
 * assignments and complete-and-end in one tree are serialised on the root
 * row; the task row itself is not locked, so each write on it is conditional
 * on what the engine read (its status, and the claimer of a claimed task).
 */
import type { Kysely } from "kysely";
import type { Definition } from "../../../domain/definition.ts";
import type { Instance } from "../../../domain/instance.ts";
import { openTask } from "../../../domain/task.ts";
import type { TaskEvent } from "../../../domain/task-event.ts";
import type {
  AssignUnderRoot,
  CompletionOutcome,
  CompletionPlan,
  NewReferral,
  ReferralFacts,
  StartProcess,
  TaskStore,
} from "../../../engine/human-tasks/task-store-port.ts";
import type { StoreSchema } from "../db-schema.ts";
import type { StoreDialect } from "../dialects/store-dialect.ts";
import { SqlReads } from "../sql-reads.ts";
import { jsonCopy, OpenTaskCache } from "./open-task-cache.ts";
import { cancelReferral, keepOneReferral } from "./referral-settlement.ts";
import { TaskTx } from "./task-tx.ts";

/** Thrown inside a completion's transaction to roll it back: its join or `next` met a completed root. */
class RootCompleted extends Error {}

export class SqlTaskStore extends SqlReads implements TaskStore {
  /** User tasks inserted here, so completing one needs no read (see open-task-cache.ts). */
  private readonly openTasks = new OpenTaskCache();

  constructor(db: Kysely<StoreSchema>, parts: StoreDialect) {
    super(db, parts);
  }

  /** Rolls back when fn throws and rethrows fn's own error, not a rollback failure. */
  async transaction<T>(fn: (tx: TaskTx) => Promise<T>): Promise<T> {
    const trx = await this.db.startTransaction().execute();
    try {
      const result = await fn(new TaskTx(trx, this.parts));
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

  /** No BEGIN/COMMIT, for a command that is one statement: each runs on whichever pooled connection is free. */
  protected get autocommit(): TaskTx {
    return new TaskTx(this.db, this.parts);
  }

  /** From the open-task cache when this store inserted the task, else one read. */
  async findTaskToComplete(
    tenantId: string,
    taskId: string,
  ): ReturnType<TaskStore["findTaskToComplete"]> {
    const known = this.openTasks.take(tenantId, taskId);
    if (known !== undefined) return known;
    const found = await this.getTaskWithInstance(tenantId, taskId);
    return found && { task: found.task, referral: found.instance };
  }

  async startProcess(cmd: StartProcess): Promise<Definition> {
    // A known definition: the start is one INSERT, which needs no transaction.
    if (cmd.definitionExists) {
      await this.autocommit.insertInstance(cmd.root);
      return cmd.definition;
    }
    return this.transaction(async (tx) => {
      const d = cmd.definition;
      // Read first: an insert-if-absent of one hot key queues concurrent starts on its index entry.
      const def = (await tx.getDefinition(d.tenantId, d.key)) ?? (await tx.ensureDefinition(d));
      await tx.insertInstance({ ...cmd.root, definitionId: def.id });
      return def;
    });
  }

  async assign(plan: AssignUnderRoot): Promise<Instance | undefined> {
    return this.transaction(async (tx) => {
      const root = await tx.lockRootForAssignment(plan.tenantId, plan.parentInstanceId);
      if (!root || root.status !== "running") return undefined;
      const rows = referralRows(plan, root);
      await tx.insertReferral(rows.referral, rows.tasks);
      return { root, rows };
    }).then((r) => {
      if (r === undefined) return undefined;
      this.remember(r.rows); // committed by now
      return r.root;
    });
  }

  async assignNewTree(rows: NewReferral): Promise<void> {
    await this.transaction((tx) => tx.insertReferral(rows.referral, rows.tasks));
  }

  /** One conditional write (`WHERE status = 'open'`): of racing claims exactly one changes the row. */
  claim(cmd: Parameters<TaskStore["claim"]>[0]): Promise<boolean> {
    const patch = {
      status: "claimed" as const,
      claimedBy: cmd.claimedBy,
      claimedAt: cmd.claimedAt,
      change: { kind: "claimed" as const, by: cmd.claimedBy, at: cmd.claimedAt, reason: null },
    };
    return this.autocommit.updateTask(cmd.tenantId, cmd.taskId, ["open"], patch);
  }

  /** Under the task's row lock, so the event shows the task as it stood when commented. */
  addComment(c: Parameters<TaskStore["addComment"]>[0]): Promise<TaskEvent | undefined> {
    return this.transaction(async (tx) => {
      const task = await tx.lockTask(c.tenantId, c.taskId);
      if (task === undefined) return undefined;
      const event: Omit<TaskEvent, "seq"> = {
        taskId: task.id,
        instanceId: task.instanceId,
        rootInstanceId: task.rootInstanceId,
        type: "commented",
        actor: c.actor,
        at: c.at,
        reason: null,
        status: task.status,
        assigneeKind: task.assigneeKind,
        assigneeId: task.assigneeId,
        claimedBy: task.claimedBy,
        action: task.action,
        comment: c.text,
      };
      return { ...event, seq: await tx.insertTaskEvent(c.tenantId, event) };
    });
  }

  handOver(cmd: Parameters<TaskStore["handOver"]>[0]): Promise<boolean> {
    // The entry kept for a fast completion names the old assignee: dropped (the
    // completion's write is conditional on the assignee too, for other nodes' entries).
    this.openTasks.take(cmd.tenantId, cmd.task.id);
    return this.autocommit.handOver(cmd.tenantId, cmd.task, cmd.handover, cmd.change);
  }

  release(cmd: Parameters<TaskStore["release"]>[0]): Promise<boolean> {
    return this.autocommit.releaseTask(cmd.tenantId, cmd.taskId, cmd.claimedBy, cmd.at);
  }

  /**
   * Root lock; the task's conditional write with its referral's counts; with
   * the last task the referral is closed (`closeReferral`: the conditional
   * write on joined_at makes the join happen once); then the join and `next`
   * under the locked root — or a rollback, when it is completed.
   */
  async complete(plan: CompletionPlan): Promise<CompletionOutcome> {
    return this.remembered(plan, await this.completeLocked(plan));
  }

  protected async completeLocked(plan: CompletionPlan): Promise<CompletionOutcome> {
    try {
      return await this.transaction(async (tx): Promise<CompletionOutcome> => {
        const { tenantId, task } = plan;
        let root = await tx.lockRootOf(tenantId, { taskId: task.id });
        const w = root && (await tx.completeTask(tenantId, task, plan.patch, true));
        if (!root || !w?.counts) return { written: false, because: "task" };
        const counts = w.counts;
        let closed = false;
        let joined = false;
        if (counts.open === 0 && counts.claimed === 0) {
          const c = await tx.closeReferral(tenantId, task.instanceId, plan.patch.completedAt!);
          closed = c !== undefined;
          // A referral made without a parent is its own root: now it is completed too.
          if (c?.referral.id === root.id) root = c.referral;
          if (c?.joined && plan.join) joined = await insertUnder(tx, root, plan.join);
        }
        if (plan.next) await insertUnder(tx, root, plan.next);
        return { written: true, counts, closed, joined };
      });
    } catch (e) {
      if (e instanceof RootCompleted) return { written: false, because: "root" };
      throw e;
    }
  }

  /** The join's or `next`'s tasks, once committed, are remembered like an assignment's. */
  protected remembered(plan: CompletionPlan, r: CompletionOutcome): CompletionOutcome {
    if (r.written && r.joined && plan.join) this.remember(plan.join);
    if (r.written && plan.next) this.remember(plan.next);
    return r;
  }

  /** Only after the rows are committed: a rolled-back task must not be found here. */
  protected remember(rows: NewReferral): void {
    // As the row holds it (JSON), and no alias of the caller's object.
    const onAllCompleted = jsonCopy(rows.referral.onAllCompleted);
    const referral = { ...factsOf(rows.referral), onAllCompleted };
    for (const task of rows.tasks) this.openTasks.put({ task, referral });
  }

  async completeAndEnd(
    plan: Parameters<TaskStore["completeAndEnd"]>[0],
  ): ReturnType<TaskStore["completeAndEnd"]> {
    return this.transaction(async (tx) => {
      const { tenantId, task } = plan;
      const root = await tx.lockRootOf(tenantId, { taskId: task.id });
      if (!root || !(await tx.completeTask(tenantId, task, plan.patch, false)))
        return { written: false };
      const at = plan.patch.completedAt!;
      const cancelled = await tx.cancelOpenTasksOfRoot(
        tenantId,
        root.id,
        task.id,
        plan.othersCancelled,
      );
      await tx.completeTree(tenantId, root.id, at);
      return { written: true, cancelled };
    });
  }

  cancelReferral(
    tenantId: string,
    referralId: string,
    at: number,
    reason: string,
  ): Promise<number> {
    return this.transaction((tx) => cancelReferral(tx, tenantId, referralId, at, reason));
  }

  keepOneReferral(c: Parameters<TaskStore["keepOneReferral"]>[0]): Promise<string> {
    return this.transaction((tx) => keepOneReferral(tx, c));
  }
}

/** Inserts a referral under the (locked) root, or rolls the transaction back when it is completed. */
async function insertUnder(tx: TaskTx, root: Instance, rows: NewReferral): Promise<true> {
  if (root.status !== "running") throw new RootCompleted();
  await tx.insertReferral(rows.referral, rows.tasks);
  // A root with tasks is past `notStarted`; checked all the same.
  if (root.processState === "notStarted") await tx.setProcessState(root.tenantId, root.id, "open");
  return true;
}

/** The rows `assign` writes, once the root is known. */
export function referralRows(a: AssignUnderRoot, root: Instance): NewReferral {
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
      ...a.details,
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

/** What a completion of one of `rows`' tasks needs to know about their referral. */
export function factsOf(referral: Instance): ReferralFacts {
  const { id, tenantId, definitionKey, parentInstanceId, rootInstanceId, startedBy } = referral;
  return {
    id,
    tenantId,
    definitionKey,
    parentInstanceId,
    rootInstanceId,
    startedBy,
    onAllCompleted: referral.onAllCompleted,
  };
}
