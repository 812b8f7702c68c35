/**
 * Domain objects ⇄ rows. The only place that knows column names and encodings:
 * BIGINT millis (strings from pg), JSON as text, status strings.
 */
import { sql, type Insertable, type Selectable } from "kysely";
import type { Definition } from "../../domain/definition.ts";
import type {
  Instance,
  InstanceKind,
  InstanceStatus,
  ProcessState,
} from "../../domain/instance.ts";
import type { AssigneeKind } from "../../domain/assignee.ts";
import type { NextAssignment } from "../../domain/assignment.ts";
import type { Task, TaskStatus } from "../../domain/task.ts";
import type { FormUi, TaskAction, TaskFormSpec } from "../../domain/task-form.ts";
import type { TaskExclusions } from "../../domain/task-exclusions.ts";
import type { Delegation } from "../../domain/task-delegation.ts";
import type { Vars } from "../../domain/vars.ts";
import type { DefinitionsTable, InstancesTable, TaskEventsTable, TasksTable } from "./db-schema.ts";
import type { TaskChange, TaskEvent, TaskEventType } from "../../domain/task-event.ts";

/** pg returns BIGINT as a string to avoid precision loss; epoch millis fit a double until year 287,396. */
export const millis = (v: number | string): number => Number(v);
const nullableMillis = (v: number | string | null): number | null =>
  v === null ? null : Number(v);
const json = <T>(v: string): T => JSON.parse(v) as T;
const nullableJson = <T>(v: string | null): T | null => (v === null ? null : json<T>(v));

export function definitionFromRow(r: Selectable<DefinitionsTable>): Definition {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    key: r.key,
    name: r.name,
    createdAt: millis(r.created_at),
  };
}

export function definitionToRow(d: Definition): Insertable<DefinitionsTable> {
  return { tenant_id: d.tenantId, id: d.id, key: d.key, name: d.name, created_at: d.createdAt };
}

export function instanceFromRow(r: Selectable<InstancesTable>): Instance {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind as InstanceKind,
    definitionId: r.definition_id,
    definitionKey: r.definition_key,
    parentInstanceId: r.parent_instance_id,
    rootInstanceId: r.root_instance_id,
    status: r.status as InstanceStatus,
    processState: r.process_state as ProcessState | null,
    vars: json<Vars>(r.vars),
    startedBy: r.started_by,
    createdAt: millis(r.created_at),
    completedAt: nullableMillis(r.completed_at),
    onAllCompleted: nullableJson<NextAssignment>(r.on_all_completed),
    joinedAt: nullableMillis(r.joined_at),
  };
}

const INSTANCE_COLUMNS: readonly (keyof InstancesTable)[] = [
  "tenant_id",
  "id",
  "kind",
  "definition_id",
  "definition_key",
  "parent_instance_id",
  "root_instance_id",
  "status",
  "process_state",
  "vars",
  "started_by",
  "created_at",
  "completed_at",
  "on_all_completed",
  "joined_at",
];

/** `r.id as r_id, …`: an instance row (alias `r`) selected next to a task row (constant text, no input). */
export const INSTANCE_COLUMNS_AS = sql.raw(
  INSTANCE_COLUMNS.map((c) => `r.${c} as r_${c}`).join(", "),
);

/** The instance of a row selected with INSTANCE_COLUMNS_AS. */
export function instanceFromPrefixedRow(r: Record<string, unknown>): Instance {
  const row: Record<string, unknown> = {};
  for (const c of INSTANCE_COLUMNS) row[c] = r[`r_${c}`];
  return instanceFromRow(row as unknown as Selectable<InstancesTable>);
}

export function instanceToRow(i: Instance): Insertable<InstancesTable> {
  return {
    tenant_id: i.tenantId,
    id: i.id,
    kind: i.kind,
    definition_id: i.definitionId,
    definition_key: i.definitionKey,
    parent_instance_id: i.parentInstanceId,
    root_instance_id: i.rootInstanceId,
    status: i.status,
    process_state: i.processState,
    vars: JSON.stringify(i.vars),
    started_by: i.startedBy,
    created_at: i.createdAt,
    completed_at: i.completedAt,
    on_all_completed: i.onAllCompleted === null ? null : JSON.stringify(i.onAllCompleted),
    joined_at: i.joinedAt,
  };
}

export function taskFromRow(r: Selectable<TasksTable>): Task {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    instanceId: r.instance_id,
    rootInstanceId: r.root_instance_id,
    definitionKey: r.definition_key,
    assigneeKind: r.assignee_kind as AssigneeKind,
    assigneeId: r.assignee_id,
    assignedBy: r.assigned_by,
    status: r.status as TaskStatus,
    claimedBy: r.claimed_by,
    claimedAt: nullableMillis(r.claimed_at),
    completedBy: r.completed_by,
    completedAt: nullableMillis(r.completed_at),
    vars: nullableJson<Vars>(r.vars),
    createdAt: millis(r.created_at),
    title: r.title,
    description: r.description,
    // MariaDB and PostgreSQL hand an integer back as a number; the cast keeps SQLite's as one too.
    priority: Number(r.priority),
    dueAt: nullableMillis(r.due_at),
    followUpAt: nullableMillis(r.follow_up_at),
    ...formFromColumns(r.form, r.actions),
    exclude: nullableJson<TaskExclusions>(r.exclusions),
    owner: r.owner,
    delegation: r.delegation as Delegation | null,
    action: r.action,
    comment: r.comment,
  };
}

/** The form and actions as two JSON columns: `{ schema, ui }` and `{ required, list }`. */
export function formColumns(t: TaskFormSpec & Pick<Task, "exclude">): {
  form: string | null;
  actions: string | null;
  exclusions: string | null;
} {
  return {
    exclusions: t.exclude === null ? null : JSON.stringify(t.exclude),
    form: t.form === null ? null : JSON.stringify({ schema: t.form, ui: t.formUi }),
    actions:
      t.actions === null ? null : JSON.stringify({ required: t.actionRequired, list: t.actions }),
  };
}

function formFromColumns(form: string | null, actions: string | null): TaskFormSpec {
  const f = nullableJson<{ schema: TaskFormSpec["form"]; ui: FormUi | null }>(form);
  const a = nullableJson<{ required: boolean; list: TaskAction[] }>(actions);
  return {
    form: f?.schema ?? null,
    formUi: f?.ui ?? null,
    actions: a?.list ?? null,
    actionRequired: a?.required ?? false,
  };
}

export function taskToRow(t: Task): Insertable<TasksTable> {
  return {
    tenant_id: t.tenantId,
    id: t.id,
    instance_id: t.instanceId,
    root_instance_id: t.rootInstanceId,
    definition_key: t.definitionKey,
    assignee_kind: t.assigneeKind,
    assignee_id: t.assigneeId,
    assigned_by: t.assignedBy,
    status: t.status,
    claimed_by: t.claimedBy,
    claimed_at: t.claimedAt,
    completed_by: t.completedBy,
    completed_at: t.completedAt,
    vars: t.vars === null ? null : JSON.stringify(t.vars),
    created_at: t.createdAt,
    title: t.title,
    description: t.description,
    priority: t.priority,
    due_at: t.dueAt,
    follow_up_at: t.followUpAt,
    ...formColumns(t),
    owner: t.owner,
    delegation: t.delegation,
    action: t.action,
    comment: t.comment,
  };
}

export type TaskPatch = Partial<
  Pick<
    Task,
    | "status"
    | "claimedBy"
    | "claimedAt"
    | "completedBy"
    | "completedAt"
    | "vars"
    | "action"
    | "comment"
    | "assigneeKind"
    | "assigneeId"
    | "owner"
    | "delegation"
  >
> & {
  /** What the update is: every update says (a trigger copies it to task_events, migration 019). */
  change?: TaskChange;
};

/** Only the keys present in the patch become SET clauses; `null` clears a column. */
export function taskPatchToRow(p: TaskPatch): Partial<Insertable<TasksTable>> {
  const row: Partial<Insertable<TasksTable>> = {};
  if (p.status !== undefined) row.status = p.status;
  if (p.claimedBy !== undefined) row.claimed_by = p.claimedBy;
  if (p.claimedAt !== undefined) row.claimed_at = p.claimedAt;
  if (p.completedBy !== undefined) row.completed_by = p.completedBy;
  if (p.completedAt !== undefined) row.completed_at = p.completedAt;
  if (p.vars !== undefined) row.vars = p.vars === null ? null : JSON.stringify(p.vars);
  if (p.action !== undefined) row.action = p.action;
  if (p.comment !== undefined) row.comment = p.comment;
  if (p.assigneeKind !== undefined) row.assignee_kind = p.assigneeKind;
  if (p.assigneeId !== undefined) row.assignee_id = p.assigneeId;
  if (p.owner !== undefined) row.owner = p.owner;
  if (p.delegation !== undefined) row.delegation = p.delegation;
  if (p.change !== undefined) Object.assign(row, changeColumns(p.change));
  return row;
}

/** A task's change columns: what its event in task_events says. */
export function changeColumns(c: TaskChange) {
  return {
    change_kind: c.kind,
    changed_by: c.by,
    changed_at: c.at,
    change_reason: c.reason,
  };
}

export function taskEventToRow(
  tenantId: string,
  e: Omit<TaskEvent, "seq">,
): Insertable<TaskEventsTable> {
  return {
    tenant_id: tenantId,
    task_id: e.taskId,
    instance_id: e.instanceId,
    root_instance_id: e.rootInstanceId,
    type: e.type,
    actor: e.actor,
    at: e.at,
    reason: e.reason,
    status: e.status,
    assignee_kind: e.assigneeKind,
    assignee_id: e.assigneeId,
    claimed_by: e.claimedBy,
    action: e.action,
    comment: e.comment,
  };
}

export function taskEventFromRow(r: Selectable<TaskEventsTable>): TaskEvent {
  return {
    seq: Number(r.id),
    taskId: r.task_id,
    instanceId: r.instance_id,
    rootInstanceId: r.root_instance_id,
    type: r.type as TaskEventType,
    actor: r.actor,
    at: millis(r.at),
    reason: r.reason,
    status: r.status as TaskStatus,
    assigneeKind: r.assignee_kind as AssigneeKind,
    assigneeId: r.assignee_id,
    claimedBy: r.claimed_by,
    action: r.action,
    comment: r.comment,
  };
}
