/**
 * Closing a run's instance tree with the run (the starter's process list): in
 * one UPDATE (it was two), every instance not yet completed becomes completed
 * at `at`, its process state closed unless it has none; the root's process
 * state is closed even if it was completed earlier. `status` is assigned last
 * because MySQL evaluates SET left to right with the new values; PostgreSQL
 * and SQLite see the old row. A child run in its parent's process (no root of
 * its own, see NewRun.rootInstanceId) closes nothing: the parent's finish does.
 *
 * Also here, for PostgreSQL's single-statement finish (finish-run.ts), the
 * same UPDATE and the parent's wake-up signal as CTEs over the finished runs `r`.
 */
import type { StoreDialect } from "../../dialects/store-dialect.ts";
import type { RunDb } from "./run-rows.ts";
import { statement } from "../../sql/statement.ts";

interface TreeParams {
  tenantId: string;
  rootId: string;
  /** The finished run's parent: when it shares the root, the process is the parent's to close. */
  parentRunId: string | null;
  at: number;
}

const COMPLETE_TREE = statement<TreeParams>(
  `update instances set
     completed_at = case when status <> 'completed' then :at else completed_at end,
     process_state = case when id = :rootId or process_state is not null then 'closed' else null end,
     status = 'completed'
   where tenant_id = :tenantId and root_instance_id = :rootId
     and (status <> 'completed' or id = :rootId)
     and not exists (select 1 from runs p where p.tenant_id = :tenantId
       and p.id = :parentRunId and p.root_instance_id = :rootId)`,
);

export async function completeTree(trx: RunDb, parts: StoreDialect, p: TreeParams): Promise<void> {
  await trx.executeQuery(COMPLETE_TREE[parts.paramStyle](p));
}

/** A finish's CTE that closes the instance tree of each finished run in `r`, at the SQL time `at`. */
export const closeTreeOf = (at: string) => `
      update instances set
        completed_at = case when instances.status <> 'completed' then ${at}
                            else instances.completed_at end,
        process_state = case when instances.id = r.root_instance_id
                               or instances.process_state is not null
                             then 'closed' else null end,
        status = 'completed'
      from r
      where instances.tenant_id = r.tenant_id and instances.root_instance_id = r.root_instance_id
        and (instances.status <> 'completed' or instances.id = r.root_instance_id)
        and not exists (select 1 from runs p where p.tenant_id = r.tenant_id
          and p.id = r.parent_run_id and p.root_instance_id = r.root_instance_id)`;

/** A finish's CTE that signals the parent of each finished child run in `r`. */
export const wakeParentOf = (signalId: string, at: string) => `
      insert into run_signals (tenant_id, run_id, id, name, payload, at, consumed_seq)
      select r.tenant_id, r.parent_run_id, ${signalId}, '__child:' || r.id, 'null', ${at}, null
      from r where r.parent_run_id is not null`;
