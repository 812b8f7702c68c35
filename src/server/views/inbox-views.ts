/**
 * Domain objects → the JSON of the REST contract (docs/api.md, JSON objects). Every field is present (null when
 * unset) and times are ISO-8601 strings; storage details (tenant, internal
 * definition id) stay out. Each view returns its wire type (src/client/wire/), the
 * one the client and the Console read, so a field that drifts fails tsc here.
 */
import type { Completion } from "../../domain/completion.ts";
import type { Definition } from "../../domain/definition.ts";
import type { Instance } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import { isOverdue } from "../../domain/task-details.ts";
import type {
  AssignResult,
  CompleteAndEndResult,
  CompleteResult,
  InstanceTree,
  Page,
} from "../../engine/index.ts";
import type * as Wire from "../../client/wire/index.ts";
import { encodeCursor } from "../requests/pagination.ts";

const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from there on toISOString writes a six-digit year. */
const YEAR_10000_MS = 253_402_300_800_000;
let cachedDay = NaN;
let cachedDayPrefix = "";
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * Date.prototype.toISOString, about five times faster: a response carries up to a
 * dozen times, and the date part ("2026-12-01T") is the same for all of them most
 * days, so it is formatted once per day and the time of day by hand. Anything
 * outside whole milliseconds of 1970–9999 goes to toISOString itself.
 */
function iso(ms: number): string {
  if (!(ms >= 0 && ms < YEAR_10000_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    cachedDay = day;
  }
  let rest = ms - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = Math.floor(rest / 1000);
  return `${cachedDayPrefix}${pad2(h)}:${pad2(m)}:${pad2(s)}.${pad3(rest - s * 1000)}Z`;
}
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

/** One argument only: views are handed to `map`, whose index must not land in a parameter. */
export function taskView(t: Task): Wire.Task {
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
    title: t.title,
    description: t.description,
    priority: t.priority,
    dueAt: isoOrNull(t.dueAt),
    followUpAt: isoOrNull(t.followUpAt),
    // Against the clock when the view is made (not stored: it changes with time alone).
    overdue: isOverdue(t, Date.now()),
    form: t.form,
    formUi: t.formUi,
    actions: t.actions,
    actionRequired: t.actionRequired,
    exclude: t.exclude,
    owner: t.owner,
    delegation: t.delegation,
    action: t.action,
    comment: t.comment,
  };
}

export function instanceView(i: Instance): Wire.Instance {
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

export function instanceTreeView(t: InstanceTree): Wire.InstanceTree {
  return {
    ...instanceView(t),
    children: t.children.map(instanceTreeView),
    tasks: t.tasks.map(taskView),
  };
}

export const definitionView = (d: Definition): Wire.Definition => ({
  id: d.id,
  key: d.key,
  name: d.name,
  createdAt: iso(d.createdAt),
});

export const completionView = (c: Completion): Wire.Completion => ({ ...c });

export const assignResultView = (r: AssignResult): Wire.AssignResult => ({
  instanceId: r.instanceId,
  task: taskView(r.task),
  tasks: r.tasks.map(taskView),
});

export const completeResultView = (r: CompleteResult): Wire.CompleteResult => ({
  task: taskView(r.task),
  completion: completionView(r.completion),
  next: r.next && assignResultView(r.next),
  joined: r.joined && assignResultView(r.joined),
});

export const completeAndEndView = (r: CompleteAndEndResult): Wire.CompleteAndEndResult => ({
  task: taskView(r.task),
  cancelled: r.cancelled,
  rootInstanceId: r.rootInstanceId,
});

export function pageView<T, V>(page: Page<T>, view: (item: T) => V): Wire.Page<V> {
  return {
    items: page.items.map(view),
    nextCursor: page.nextAfter === null ? null : encodeCursor(page.nextAfter),
  };
}
