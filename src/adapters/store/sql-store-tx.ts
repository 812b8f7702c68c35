/**
 * StoreTx: the writes, inside one Kysely transaction. Transitions are single
 * conditional UPDATEs whose affected-row count says who won, so two racing
 * transactions can never both succeed even without a prior lock.
 */
import { sql, type Transaction } from "kysely";
import type { Definition } from "../../domain/definition.ts";
import type { Instance, ProcessState } from "../../domain/instance.ts";
import type { Task, TaskStatus } from "../../domain/task.ts";
import type { StoreTx } from "../../engine/ports.ts";
import type { StoreSchema } from "./db-schema.ts";
import type { StoreDialect } from "./dialects/store-dialect.ts";
import {
  definitionToRow,
  instanceFromRow,
  instanceToRow,
  taskFromRow,
  taskPatchToRow,
  taskToRow,
  type TaskPatch,
} from "./row-mapping.ts";
import { lit, SqlReads } from "./sql-reads.ts";

/** A completed root is in process state 'closed'; referrals have no process state. */
const closedIfRoot = sql<
  string | null
>`case when ${sql.ref("process_state")} is null then null else 'closed' end`;

export class SqlStoreTx extends SqlReads implements StoreTx {
  constructor(
    private readonly trx: Transaction<StoreSchema>,
    parts: StoreDialect,
  ) {
    super(trx, parts);
  }

  /**
   * Insert-if-absent, then read. Race-free because the unique key (tenant_id, key)
   * arbitrates: a concurrent inserter of the same key blocks on the winner's
   * uncommitted index entry, then does nothing; its following SELECT is a new
   * statement under READ COMMITTED (PostgreSQL; MariaDB as configured in
   * dialects/mysql.ts), so it sees the winner's committed row.
   * On MariaDB `ON DUPLICATE KEY UPDATE id = id` rather than `INSERT IGNORE`:
   * IGNORE also turns real errors (a too-long value) into warnings and truncates.
   */
  async ensureDefinition(d: Definition): Promise<Definition> {
    const insert = this.trx.insertInto("definitions").values(definitionToRow(d));
    if (this.parts.insertIgnore === "on-conflict-do-nothing") {
      await insert.onConflict((oc) => oc.columns(["tenant_id", "key"]).doNothing()).execute();
    } else {
      await insert.onDuplicateKeyUpdate({ id: (eb) => eb.ref("definitions.id") }).execute();
    }
    const existing = await this.getDefinition(d.tenantId, d.key);
    if (!existing) throw new Error(`definition '${d.key}' vanished right after its upsert`);
    return existing;
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
