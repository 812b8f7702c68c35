/**
 * Domain objects → the JSON of the REST contract (docs/api.md, JSON objects). Every field is present (null when
 * unset) and times are ISO-8601 strings; storage details (tenant, internal
 * definition id) stay out.
 */
import type { Completion } from "../domain/completion.ts";
import type { Definition } from "../domain/definition.ts";
import type { Instance } from "../domain/instance.ts";
import type { Task } from "../domain/task.ts";
import type {
  AssignResult,
  CompleteAndEndResult,
  CompleteResult,
  InstanceTree,
  Page,
} from "../engine/human-task-api.ts";
import { encodeCursor } from "./pagination.ts";

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function taskView(t: Task) {
  return {
    id: t.id,
    instanceId: t.instanceId,
    rootInstanceId: t.rootInstanceId,
    definitionKey: t.definitionKey,
    assignee: { kind: t.assigneeKind, id: t.assigneeId },
    assignedBy: t.assignedBy,
    status: t.status,
    claimedBy: t.claimedBy,
    claimedAt: isoOrNull(t.claimedAt),
    completedBy: t.completedBy,
    completedAt: isoOrNull(t.completedAt),
    vars: t.vars,
    createdAt: iso(t.createdAt),
  };
}

export function instanceView(i: Instance) {
  return {
    id: i.id,
    kind: i.kind,
    definitionKey: i.definitionKey,
    parentInstanceId: i.parentInstanceId,
    rootInstanceId: i.rootInstanceId,
    status: i.status,
    processState: i.processState,
    vars: i.vars,
    startedBy: i.startedBy,
    createdAt: iso(i.createdAt),
    completedAt: isoOrNull(i.completedAt),
    onAllCompleted: i.onAllCompleted,
    joinedAt: isoOrNull(i.joinedAt),
  };
}

export type InstanceTreeView = ReturnType<typeof instanceView> & {
  children: InstanceTreeView[];
  tasks: ReturnType<typeof taskView>[];
};

export function instanceTreeView(t: InstanceTree): InstanceTreeView {
  return {
    ...instanceView(t),
    children: t.children.map(instanceTreeView),
    tasks: t.tasks.map(taskView),
  };
}

export const definitionView = (d: Definition) => ({
  id: d.id,
  key: d.key,
  name: d.name,
  createdAt: iso(d.createdAt),
});

export const completionView = (c: Completion) => ({ ...c });

export const assignResultView = (r: AssignResult) => ({
  instanceId: r.instanceId,
  task: taskView(r.task),
  tasks: r.tasks.map(taskView),
});

export const completeResultView = (r: CompleteResult) => ({
  task: taskView(r.task),
  completion: completionView(r.completion),
  next: r.next && assignResultView(r.next),
  joined: r.joined && assignResultView(r.joined),
});

export const completeAndEndView = (r: CompleteAndEndResult) => ({
  task: taskView(r.task),
  cancelled: r.cancelled,
  rootInstanceId: r.rootInstanceId,
});

export function pageView<T, V>(page: Page<T>, view: (item: T) => V) {
  return {
    items: page.items.map(view),
    nextCursor: page.nextAfter === null ? null : encodeCursor(page.nextAfter),
  };
}
