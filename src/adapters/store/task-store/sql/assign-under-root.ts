/**
 * An assignment under an existing tree as one autocommit statement
 * (PostgreSQL; the locked transaction does the same in three to four).
 *
 * Why one statement is safe: the root's UPDATE is the row lock — it waits for a
 * completion or another assignment holding it, then re-checks
 * `status = 'running'` on the latest row version — and the inserts select from
 * its RETURNING, so without a running root nothing is written. The tasks come
 * as arrays, so the text (and its prepared plan) is the same for any number.
 */
import type { Selectable } from "kysely";
import type { AssignUnderRoot } from "../../../../engine/human-tasks/task-store-port.ts";
import type { InstancesTable } from "../../db-schema.ts";
import { formColumns } from "../../row-mapping.ts";
import { statement } from "../../sql/statement.ts";

interface Params {
  tenant_id: string;
  parent_id: string;
  referral_id: string;
  /** Null: the root's definition. */
  definition_id: string | null;
  definition_key: string | null;
  vars: string;
  started_by: string;
  created_at: number;
  on_all_completed: string | null;
  task_ids: string[];
  assignee_kinds: string[];
  assignee_ids: string[];
  /** The details every task of the referral shows. */
  title: string | null;
  description: string | null;
  priority: number;
  due_at: number | null;
  follow_up_at: number | null;
  form: string | null;
  actions: string | null;
  exclusions: string | null;
}

const ASSIGN_UNDER_ROOT = statement<Params, Selectable<InstancesTable>>(`
  with r as (
    update instances set process_state =
      case when process_state = 'notStarted' then 'open' else process_state end
    where tenant_id = :tenant_id and status = 'running'
      and id = (select c.root_instance_id from instances c
                where c.tenant_id = :tenant_id and c.id = :parent_id)
    returning *
  ), i as (
    insert into instances (tenant_id, id, kind, definition_id, definition_key,
      parent_instance_id, root_instance_id, status, vars, started_by, created_at,
      on_all_completed)
    select r.tenant_id, :referral_id::text, 'referral',
      coalesce(:definition_id::text, r.definition_id),
      coalesce(:definition_key::text, r.definition_key),
      r.id, r.id, 'running', :vars::text, :started_by::text, :created_at::bigint,
      :on_all_completed::text
    from r
    returning tenant_id, id, root_instance_id, definition_key, started_by, created_at
  ), t as (
    insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
      assignee_kind, assignee_id, assigned_by, status, created_at,
      title, description, priority, due_at, follow_up_at, form, actions, exclusions)
    select i.tenant_id, v.id, i.id, i.root_instance_id, i.definition_key,
      v.kind, v.aid, i.started_by, 'open', i.created_at,
      :title::text, :description::text, :priority::integer, :due_at::bigint, :follow_up_at::bigint,
      :form::text, :actions::text, :exclusions::text
    from i cross join unnest(:task_ids::text[], :assignee_kinds::text[],
      :assignee_ids::text[]) as v(id, kind, aid)
  )
  select * from r`);

export function assignUnderRoot(a: AssignUnderRoot) {
  const r = a.referral;
  return ASSIGN_UNDER_ROOT.numbered({
    tenant_id: a.tenantId,
    parent_id: a.parentInstanceId,
    referral_id: r.id,
    definition_id: a.definition?.id ?? null,
    definition_key: a.definition?.key ?? null,
    vars: JSON.stringify(r.vars),
    started_by: r.startedBy,
    created_at: r.createdAt,
    on_all_completed: r.onAllCompleted === null ? null : JSON.stringify(r.onAllCompleted),
    task_ids: a.tasks.map((t) => t.id),
    assignee_kinds: a.tasks.map((t) => t.assigneeKind),
    assignee_ids: a.tasks.map((t) => t.assigneeId),
    title: a.details.title,
    description: a.details.description,
    priority: a.details.priority,
    due_at: a.details.dueAt,
    follow_up_at: a.details.followUpAt,
    ...formColumns(a.details),
  });
}
