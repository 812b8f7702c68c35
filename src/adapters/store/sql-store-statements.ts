/**
 * The human-task REST cycle's PostgreSQL statements as fixed SQL texts,
 * executed as CompiledQuery without the query builder (the pattern of
 * run-store/run-statements.ts).
 *
 * Why: built with Kysely's `sql` template, the completion statement (7 CTEs, 35
 * parameters) was parsed into operation nodes, frozen and compiled on every call,
 * and its 2.5 KB text then hashed again to find its prepared-statement name. At
 * 32 cycles in flight a completion cost the server 0.50 ms of CPU (measured per
 * request type with /proc, 2026-11-30). A constant text keeps its hash, so the
 * name lookup is cheap too.
 *
 * Every parameter appears once in a text (PostgreSQL deduces one type per
 * parameter). The texts and their parameter lists are written side by side:
 * keep them in step.
 */
import { CompiledQuery, type Selectable } from "kysely";
import type { InstancesTable } from "./db-schema.ts";
import type { AssignUnderRoot, CompletionPlan } from "../../engine/ports.ts";
import { instanceToRow, taskPatchToRow } from "./row-mapping.ts";

/**
 * See PgTaskStore.assign. The root's UPDATE is the row lock;
 * the inserts select from its RETURNING, so without a running root nothing is
 * written. Tasks come as arrays: one text for any number of them.
 */
const ASSIGN_UNDER_ROOT = `
  with r as (
    update instances set process_state =
      case when process_state = 'notStarted' then 'open' else process_state end
    where tenant_id = $1 and status = 'running'
      and id = (select c.root_instance_id from instances c
                where c.tenant_id = $2 and c.id = $3)
    returning *
  ), i as (
    insert into instances (tenant_id, id, kind, definition_id, definition_key,
      parent_instance_id, root_instance_id, status, vars, started_by, created_at,
      on_all_completed)
    select r.tenant_id, $4::text, 'referral',
      coalesce($5::text, r.definition_id),
      coalesce($6::text, r.definition_key),
      r.id, r.id, 'running', $7::text, $8::text, $9::bigint, $10::text
    from r
    returning tenant_id, id, root_instance_id, definition_key, started_by, created_at
  ), t as (
    insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
      assignee_kind, assignee_id, assigned_by, status, created_at)
    select i.tenant_id, v.id, i.id, i.root_instance_id, i.definition_key,
      v.kind, v.aid, i.started_by, 'open', i.created_at
    from i cross join unnest($11::text[], $12::text[], $13::text[]) as v(id, kind, aid)
  )
  select * from r`;

export function assignUnderRoot(a: AssignUnderRoot): CompiledQuery<Selectable<InstancesTable>> {
  const r = a.referral;
  return CompiledQuery.raw(ASSIGN_UNDER_ROOT, [
    a.tenantId,
    a.tenantId,
    a.parentInstanceId,
    r.id,
    a.definition?.id ?? null,
    a.definition?.key ?? null,
    JSON.stringify(r.vars),
    r.startedBy,
    r.createdAt,
    r.onAllCompleted === null ? null : JSON.stringify(r.onAllCompleted),
    a.tasks.map((t) => t.id),
    a.tasks.map((t) => t.assigneeKind),
    a.tasks.map((t) => t.assigneeId),
  ]);
}

/** How the task's write is conditioned on its claimer: by the status the caller read. */
type ClaimerCondition = "none" | "null" | "equals";

/**
 * See the comment above completeTask for the lock order and why each part reads
 * what it reads. Four variants (claimer condition × running root), each built
 * once; the claimer's parameter, when there is one, is the last ($36).
 */
function completionText(claimer: ClaimerCondition, running: boolean): string {
  const byClaimer =
    claimer === "none"
      ? ""
      : claimer === "null"
        ? " and claimed_by is null"
        : " and claimed_by = $36";
  const runningRoot = running ? " and r.status = 'running'" : "";
  return `
  with r as (
    select id, status from instances
    where tenant_id = $1 and id = $2
    for update
  ), o as (
    select id, status from tasks
    where tenant_id = $3 and instance_id = $4
      and exists (select 1 from r)
    order by id
    for share
  ), u as (
    update tasks set status = $5, completed_by = $6, completed_at = $7, vars = $8
    where tenant_id = $9 and id = $10 and status = $11${byClaimer}
      and (select count(*) from o) > 0
      and exists (select 1 from r where true${runningRoot})
    returning id
  ), n as (
    select
      count(*) filter (where status = 'open') as n_open,
      count(*) filter (where status = 'claimed') as n_claimed,
      count(*) filter (where status = 'done') as n_done,
      count(*) filter (where status = 'cancelled') as n_cancelled
    from o where id <> $12
  ), c as (
    update instances set status = 'completed', completed_at = $13,
      process_state = case when process_state is null then null else 'closed' end,
      joined_at = case when on_all_completed is null then joined_at else $14 end
    where tenant_id = $15 and id = $16
      and status <> 'completed' and joined_at is null
      and exists (select 1 from u)
      and (select n_open + n_claimed from n) = 0
    returning on_all_completed
  ), ji as (
    insert into instances (tenant_id, id, kind, definition_id, definition_key,
      parent_instance_id, root_instance_id, status, vars, started_by, created_at,
      on_all_completed)
    select $17::text, $18::text, 'referral', $19::text, $20::text, $21::text, $22::text,
      'running', $23::text, $24::text, $25::bigint, $26::text
    from c where c.on_all_completed is not null and $27::boolean
    returning id
  ), jt as (
    insert into tasks (tenant_id, id, instance_id, root_instance_id, definition_key,
      assignee_kind, assignee_id, assigned_by, status, created_at)
    select $28::text, v.id, ji.id, v.root, v.dkey, v.kind, v.aid, v.aby, 'open', v.at
    from ji cross join unnest($29::text[], $30::text[], $31::text[], $32::text[],
      $33::text[], $34::text[], $35::bigint[]) as v(id, root, dkey, kind, aid, aby, at)
  )
  select (select count(*) from u) as updated, n.*,
    (select count(*) from c) as closed, (select count(*) from ji) as joined
  from n`;
}

const completionTexts = new Map<string, string>();

function completionTextOf(claimer: ClaimerCondition, running: boolean): string {
  const key = `${claimer}:${running}`;
  let text = completionTexts.get(key);
  if (text === undefined) {
    text = completionText(claimer, running);
    completionTexts.set(key, text);
  }
  return text;
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

export function completeTask(c: CompletionPlan): CompiledQuery<CompletionRow> {
  const t = c.task;
  const p = taskPatchToRow(c.patch);
  const claimer: ClaimerCondition =
    t.status !== "claimed" ? "none" : t.claimedBy === null ? "null" : "equals";
  const j = c.join;
  const jr: ReturnType<typeof instanceToRow> | null = j && instanceToRow(j.referral);
  const jt = j ? j.tasks : [];
  const values: unknown[] = [
    c.tenantId,
    t.rootInstanceId,
    c.tenantId,
    t.instanceId,
    p.status,
    p.completed_by,
    p.completed_at,
    p.vars,
    c.tenantId,
    t.id,
    t.status,
    t.id,
    p.completed_at,
    p.completed_at,
    c.tenantId,
    t.instanceId,
    c.tenantId,
    jr?.id ?? null,
    jr?.definition_id ?? null,
    jr?.definition_key ?? null,
    jr?.parent_instance_id ?? null,
    jr?.root_instance_id ?? null,
    jr?.vars ?? null,
    jr?.started_by ?? null,
    jr?.created_at ?? null,
    jr?.on_all_completed ?? null,
    j !== null,
    c.tenantId,
    jt.map((x) => x.id),
    jt.map((x) => x.rootInstanceId),
    jt.map((x) => x.definitionKey),
    jt.map((x) => x.assigneeKind),
    jt.map((x) => x.assigneeId),
    jt.map((x) => x.assignedBy),
    jt.map((x) => x.createdAt),
  ];
  if (claimer === "equals") values.push(t.claimedBy);
  // Only a join needs a running root: without one a completion under a completed root is fine.
  return CompiledQuery.raw(completionTextOf(claimer, j !== null), values);
}
