/**
 * A whole completion as one autocommit statement (PostgreSQL): the task, its
 * referral with the last task, and the referral's join — under the same locks,
 * in the same order, as the locked transaction (sql-task-store.ts), which does
 * the same in four to seven statements and decides whatever this one leaves
 * unwritten.
 *
 * Why this lock order: it follows from what each part reads. `o` cannot run
 * before `r` (its condition reads `r`), `u` not before all of `o` (it counts
 * it), `c` not before `u`. So the root is locked first — the lock order of
 * every other path — then the referral's tasks, this one included, in id order
 * (FOR SHARE), then this task is written, then the referral. Id order matters:
 * the durable bridge cancels a referral's tasks in id order without the root
 * lock, and locking ours first and the others after could deadlock with it.
 *
 * Why no plain read is trusted: the statement's snapshot is taken before the
 * root lock is granted, so the tasks are read with a locking read and the task
 * and the referral changed by UPDATEs, which under READ COMMITTED act on the
 * latest committed row version (re-checking their conditions on it). The
 * referral's tasks are all inserted with it, so none can be missing from the
 * snapshot. `c` is the join guard (`joined_at IS NULL`), as in closeReferral.
 */
import type { CompletionPlan } from "../../../../engine/human-tasks/task-store-port.ts";
import { changeColumns, formColumns, instanceToRow, taskPatchToRow } from "../../row-mapping.ts";
import type { TaskFormSpec } from "../../../../domain/task-form.ts";
import type { Task } from "../../../../domain/task.ts";
import { DEFAULT_TASK_PRIORITY } from "../../../../domain/task-details.ts";
import { statement, type Statement } from "../../sql/statement.ts";

interface Params {
  tenant_id: string;
  root_id: string;
  referral_id: string;
  task_id: string;
  /** The task's status as read: the write is conditional on it… */
  status_as_read: string;
  /** … on its assignee (a reassignment since the read fails it) … */
  assignee_kind: string;
  assignee_id: string;
  /** … and, for a claimed task, on its claimer (only in the `equals` variant). */
  claimed_by?: string | null;
  status: string;
  completed_by: string | null;
  completed_at: number | null;
  vars: string | null;
  action: string | null;
  comment: string | null;
  /** The change the task's event records (a trigger copies it to task_events). */
  change_kind: string;
  changed_by: string | null;
  changed_at: number;
  change_reason: string | null;
  /** The join's referral and tasks, inserted only if this completion takes the join. */
  join: boolean;
  join_id: string | null;
  join_definition_id: string | null;
  join_definition_key: string | null;
  join_parent_id: string | null;
  join_root_id: string | null;
  join_vars: string | null;
  join_started_by: string | null;
  join_created_at: number | null;
  join_on_all_completed: string | null;
  join_task_ids: string[];
  join_task_roots: string[];
  join_task_definition_keys: string[];
  join_task_assignee_kinds: string[];
  join_task_assignee_ids: string[];
  join_task_assigned_by: string[];
  join_task_created_at: number[];
  /** The details every task of the join shows (one request made them all). */
  join_title: string | null;
  join_description: string | null;
  join_priority: number;
  join_due_at: number | null;
  join_follow_up_at: number | null;
  join_form: string | null;
  join_actions: string | null;
  join_exclusions: string | null;
}

export interface CompletionRow {
  updated: number | string;
  n_open: number | string;
  n_claimed: number | string;
  n_done: number | string;
  n_cancelled: number | string;
  closed: number | string;
  joined: number | string;
}

/** How the task's write is conditioned on its claimer: by the status the engine read. */
type ClaimerCondition = "none" | "null" | "equals";

/** Four variants (claimer condition × running root), each built once. */
function completionText(claimer: ClaimerCondition, running: boolean): string {
  const byClaimer =
    claimer === "none"
      ? ""
      : claimer === "null"
        ? " and claimed_by is null"
        : " and claimed_by = :claimed_by";
  const runningRoot = running ? " and r.status = 'running'" : "";
  return `
  with r as (
    select id, status from instances
    where tenant_id = :tenant_id and id = :root_id
    for update
  ), o as (
    select id, status from tasks
    where tenant_id = :tenant_id and instance_id = :referral_id
      and exists (select 1 from r)
    order by id
    for share
  ), u as (
    update tasks set status = :status, completed_by = :completed_by,
      completed_at = :completed_at, vars = :vars, action = :action, comment = :comment,
      change_kind = :change_kind, changed_by = :changed_by, changed_at = :changed_at,
      change_reason = :change_reason
    where tenant_id = :tenant_id and id = :task_id and status = :status_as_read${byClaimer}
      and assignee_kind = :assignee_kind and assignee_id = :assignee_id
      and (select count(*) from o) > 0
      and exists (select 1 from r where true${runningRoot})
    returning id
  ), n as (
    select
      count(*) filter (where status = 'open') as n_open,
      count(*) filter (where status = 'claimed') as n_claimed,
      count(*) filter (where status = 'done') as n_done,
      count(*) filter (where status = 'cancelled') as n_cancelled
    from o where id <> :task_id
  ), c as (
    update instances set status = 'completed', completed_at = :completed_at,
      process_state = case when process_state is null then null else 'closed' end,
      joined_at = case when on_all_completed is null then joined_at else :completed_at end
    where tenant_id = :tenant_id and id = :referral_id
      and status <> 'completed' and joined_at is null
      and exists (select 1 from u)
      and (select n_open + n_claimed from n) = 0
    returning on_all_completed
  ), ji as (
    insert into instances (tenant_id, id, kind, definition_id, definition_key,
      parent_instance_id, root_instance_id, status, vars, started_by, created_at,
      on_all_completed)
    select :tenant_id::text, :join_id::text, 'referral', :join_definition_id::text,
      :join_definition_key::text, :join_parent_id::text, :join_root_id::text,
      'running', :join_vars::text, :join_started_by::text, :join_created_at::bigint,
      :join_on_all_completed::text
    from c where c.on_all_completed is not null and :join::boolean
    returning id
  ), jt as (
    insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
      assignee_kind, assignee_id, assigned_by, status, created_at,
      title, description, priority, due_at, follow_up_at, form, actions, exclusions)
    select :tenant_id::text, v.id, ji.id, v.root, v.dkey, v.kind, v.aid, v.aby, 'open', v.at,
      :join_title::text, :join_description::text, :join_priority::integer,
      :join_due_at::bigint, :join_follow_up_at::bigint, :join_form::text, :join_actions::text,
      :join_exclusions::text
    from ji cross join unnest(:join_task_ids::text[], :join_task_roots::text[],
      :join_task_definition_keys::text[], :join_task_assignee_kinds::text[],
      :join_task_assignee_ids::text[], :join_task_assigned_by::text[],
      :join_task_created_at::bigint[]) as v(id, root, dkey, kind, aid, aby, at)
  )
  select (select count(*) from u) as updated, n.*,
    (select count(*) from c) as closed, (select count(*) from ji) as joined
  from n`;
}

const VARIANTS = new Map<string, Statement<Params, CompletionRow>>();
for (const claimer of ["none", "null", "equals"] as const) {
  for (const running of [false, true]) {
    VARIANTS.set(`${claimer}:${running}`, statement(completionText(claimer, running)));
  }
}

export function completeTask(c: CompletionPlan) {
  const t = c.task;
  const p = taskPatchToRow(c.patch);
  const claimer: ClaimerCondition =
    t.status !== "claimed" ? "none" : t.claimedBy === null ? "null" : "equals";
  const j = c.join;
  const jr = j && instanceToRow(j.referral);
  const jt = j ? j.tasks : [];
  // Only a join needs a running root: without one a completion under a completed root is fine.
  return VARIANTS.get(`${claimer}:${j !== null}`)!.numbered({
    tenant_id: c.tenantId,
    root_id: t.rootInstanceId,
    referral_id: t.instanceId,
    task_id: t.id,
    status_as_read: t.status,
    assignee_kind: t.assigneeKind,
    assignee_id: t.assigneeId,
    claimed_by: t.claimedBy,
    status: p.status!,
    completed_by: p.completed_by ?? null,
    completed_at: p.completed_at ?? null,
    vars: p.vars ?? null,
    action: p.action ?? null,
    comment: p.comment ?? null,
    ...changeColumns(c.patch.change),
    join: j !== null,
    join_id: jr?.id ?? null,
    join_definition_id: jr?.definition_id ?? null,
    join_definition_key: jr?.definition_key ?? null,
    join_parent_id: jr?.parent_instance_id ?? null,
    join_root_id: jr?.root_instance_id ?? null,
    join_vars: jr?.vars ?? null,
    join_started_by: jr?.started_by ?? null,
    join_created_at: jr?.created_at ?? null,
    join_on_all_completed: jr?.on_all_completed ?? null,
    join_task_ids: jt.map((x) => x.id),
    join_task_roots: jt.map((x) => x.rootInstanceId),
    join_task_definition_keys: jt.map((x) => x.definitionKey),
    join_task_assignee_kinds: jt.map((x) => x.assigneeKind),
    join_task_assignee_ids: jt.map((x) => x.assigneeId),
    join_task_assigned_by: jt.map((x) => x.assignedBy),
    join_task_created_at: jt.map((x) => x.createdAt),
    join_title: jt[0]?.title ?? null,
    join_description: jt[0]?.description ?? null,
    join_priority: jt[0]?.priority ?? DEFAULT_TASK_PRIORITY,
    join_due_at: jt[0]?.dueAt ?? null,
    join_follow_up_at: jt[0]?.followUpAt ?? null,
    ...joinFormColumns(jt[0]),
  });
}

function joinFormColumns(t: (TaskFormSpec & Pick<Task, "exclude">) | undefined) {
  const c = t === undefined ? { form: null, actions: null, exclusions: null } : formColumns(t);
  return { join_form: c.form, join_actions: c.actions, join_exclusions: c.exclusions };
}
