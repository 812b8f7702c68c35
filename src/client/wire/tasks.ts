/** Human tasks and assignments as the REST API sends and accepts them (docs/api.md). */
import type { IsoTime, Vars } from "./common.ts";

/** Who gets the task(s): one user, one group, or one user task per id of `ids`. */
export type AssigneeRequest =
  { kind: "user"; id: string } | { kind: "group"; id: string } | { kind: "users"; ids: string[] };

/** The assignee on a task: a `users` request made one `user` task per id. */
export interface TaskAssignee {
  kind: "user" | "group";
  id: string;
}

/**
 * What a person reads on a task, whichever way it is made: every task of one
 * assignment shows the same. Priority 0–100, 50 when not given.
 */
export interface TaskDetailsRequest {
  title?: string;
  description?: string;
  priority?: number;
  dueAt?: IsoTime;
  followUpAt?: IsoTime;
  /** JSON Schema (draft 2020-12) of the vars the completer submits. */
  form?: JsonSchema;
  formUi?: FormUi;
  /** The named actions a completion chooses from, by name. */
  actions?: Record<string, TaskActionRequest>;
  /** A completion must name an action (default: true when there are actions). */
  actionRequired?: boolean;
  /** The four-eyes rule: who may not complete (nor claim) it. */
  exclude?: TaskExclusions;
}

export interface TaskExclusions {
  users?: string[];
  /** The process's starter. */
  starter?: boolean;
  /** Whoever completed an earlier task of the process. */
  earlierCompleters?: boolean;
}

/** A JSON Schema: an object, or `true` / `false`. */
export type JsonSchema = { [key: string]: unknown } | boolean;

/** Text, or text per language tag (`{ "en": "Approve", "fa": "تأیید" }`). */
export type LocalizedText = string | Record<string, string>;

export type FormWidget = "text" | "textarea" | "number" | "checkbox" | "date" | "select";

/** How a form is shown: its top-level fields' order and each one's hints. */
export interface FormUi {
  order?: string[];
  fields?: Record<string, { label?: LocalizedText; help?: LocalizedText; widget?: FormWidget }>;
}

export interface TaskActionRequest {
  label?: LocalizedText;
  commentRequired?: boolean;
}

export interface TaskAction {
  name: string;
  label: LocalizedText | null;
  commentRequired: boolean;
}

/** The body of `POST /v1/tasks/{id}/complete` (and complete-and-end, without `next`). */
export interface CompleteRequest {
  vars?: Vars;
  /** One of the task's actions. */
  action?: string;
  comment?: string;
  /** Assign this next, under the same root, in the same transaction. */
  next?: NextAssignment;
}

/** An assignment attached to the same root: `onAllCompleted` (the join) and `next`. */
export interface NextAssignment extends TaskDetailsRequest {
  definitionKey?: string;
  assignee: AssigneeRequest;
  vars?: Vars;
  onAllCompleted?: NextAssignment;
}

/** The body of `POST /v1/assignments`: give `parentInstanceId` or `definitionKey`. */
export interface AssignmentRequest extends NextAssignment {
  parentInstanceId?: string;
}

export type TaskStatus = "open" | "claimed" | "done" | "cancelled";

export interface Task {
  id: string;
  instanceId: string;
  rootInstanceId: string;
  definitionKey: string;
  assignee: TaskAssignee;
  assignedBy: string;
  status: TaskStatus;
  claimedBy: string | null;
  claimedAt: IsoTime | null;
  completedBy: string | null;
  completedAt: IsoTime | null;
  vars: Vars | null;
  createdAt: IsoTime;
  title: string | null;
  description: string | null;
  priority: number;
  dueAt: IsoTime | null;
  followUpAt: IsoTime | null;
  /** Due, and still open or claimed, when the answer was made. */
  overdue: boolean;
  form: JsonSchema | null;
  formUi: FormUi | null;
  actions: TaskAction[] | null;
  actionRequired: boolean;
  exclude: Required<TaskExclusions> | null;
  /** Whom a delegated task goes back to once resolved. */
  owner: string | null;
  /** `pending`: the delegate resolves it; `resolved`: back with its owner to complete. */
  delegation: "pending" | "resolved" | null;
  /** The action the completion chose. */
  action: string | null;
  /** The completion's comment. */
  comment: string | null;
}

/** What a task's audit trail records: one event per change (docs/api.md, Task events). */
export type TaskEventType =
  | "created"
  | "claimed"
  | "released"
  | "completed"
  | "cancelled"
  | "commented"
  | "delegated"
  | "resolved"
  | "reassigned"
  | "escalated";

export interface TaskEvent {
  /** Grows with every event: the trail's order. */
  id: string;
  taskId: string;
  instanceId: string;
  rootInstanceId: string;
  type: TaskEventType;
  /** Who made the change; null when the engine did (a policy met, a timeout). */
  actor: string | null;
  at: IsoTime;
  reason: string | null;
  /** The task after the change. */
  status: TaskStatus;
  assignee: TaskAssignee;
  claimedBy: string | null;
  action: string | null;
  /** A completion's comment, or a `commented` event's text. */
  comment: string | null;
}

/** The body of `POST /v1/tasks/{id}/comments`. */
export interface CommentRequest {
  text: string;
}

export interface Completion {
  instanceId: string;
  allCompleted: boolean;
  total: number;
  open: number;
  claimed: number;
  done: number;
  cancelled: number;
}

export interface AssignResult {
  instanceId: string;
  /** The first task (the only one for a `user` or `group` assignee). */
  task: Task;
  tasks: Task[];
}

export interface CompleteResult {
  task: Task;
  /** The task's referral after this completion. */
  completion: Completion;
  /** The assignment this completion caused (the explicit `next`, else the join), or `null`. */
  next: AssignResult | null;
  /** The join this completion performed, or `null`. */
  joined: AssignResult | null;
}

export interface CompleteAndEndResult {
  task: Task;
  /** How many other open or claimed tasks were cancelled. */
  cancelled: number;
  rootInstanceId: string;
}
