/**
 * The task-store port: what the human-task use cases need from storage —
 * reads, and one command per use case. Implemented by the SQL store
 * (src/adapters/store/), chosen by the composition root. Its neighbours: the
 * directory (../directory-port.ts) and the clock (../clock-port.ts).
 *
 * Glossary
 * - tenant: every row and every query carries a tenant id; nothing crosses tenants.
 * - root: the instance a process starts with; referrals hang under it.
 * - referral: the instance one AssignTo creates; its tasks are the inbox records.
 * - page: a keyset page ordered by id (ids are UUIDv7, so by creation time);
 *   `after` is the last id of the previous page.
 * - command: one write use case handed to the store as a plan the engine built;
 *   the store applies it atomically and conditionally and says what happened.
 */
import type { Definition } from "../../domain/definition.ts";
import type { Instance, ProcessState } from "../../domain/instance.ts";
import type { Task, TaskStatus } from "../../domain/task.ts";
import type { TaskDetails } from "../../domain/task-details.ts";
import type { TaskChange, TaskEvent } from "../../domain/task-event.ts";
import type { Handover } from "../../domain/task-delegation.ts";
import type { Vars } from "../../domain/vars.ts";
import type { StatusCounts } from "../../domain/completion.ts";

export interface PageQuery {
  limit: number;
  /** Exclusive lower bound on id. */
  after?: string | undefined;
}

export interface InboxQuery extends PageQuery {
  tenantId: string;
  /** Open tasks assigned to any of these (kind, id) pairs … */
  assignees: { kind: "user" | "group"; id: string }[];
  /** … plus tasks claimed by this user. */
  claimedBy?: string | undefined;
}

export type TaskAssigneeKey = { kind: "user" | "group"; id: string };

/** Tasks assigned to any of the assignees, in id order. */
export interface AssignedTasksQuery extends PageQuery {
  tenantId: string;
  assignees: TaskAssigneeKey[];
  /** Only tasks in this status; undefined: any status. */
  status?: TaskStatus | undefined;
}

/** Where a newest-first page of finished tasks stopped: (completedAt, id) of its last task. */
export interface FinishedPosition {
  at: number;
  id: string;
}

/** Finished tasks, newest first by (completedAt, id). Either `assignees` or `completedBy`. */
export interface FinishedTasksQuery {
  tenantId: string;
  status: "done" | "cancelled";
  /** Tasks assigned to any of these … */
  assignees?: TaskAssigneeKey[] | undefined;
  /** … or: tasks this user completed. */
  completedBy?: string | undefined;
  limit: number;
  /** Exclusive upper bound in (completedAt, id) order. */
  before?: FinishedPosition | undefined;
}

export interface TaskEventQuery {
  tenantId: string;
  /** One task's events, or … */
  taskId?: string | undefined;
  /** … every task's of the process with this root. */
  rootInstanceId?: string | undefined;
  /** Exclusive lower bound of `seq`. */
  afterSeq?: number | undefined;
  limit: number;
}

export interface ProcessQuery extends PageQuery {
  tenantId: string;
  startedBy: string;
  state?: ProcessState | undefined;
  /** Created at or after (epoch ms). */
  createdFrom?: number | undefined;
  /** Created before (epoch ms). */
  createdUntil?: number | undefined;
}

/** Reads. Each is one statement; none takes a lock. */
export interface StoreReads {
  getDefinition(tenantId: string, key: string): Promise<Definition | undefined>;
  listDefinitions(tenantId: string, page: PageQuery): Promise<Definition[]>;
  getInstance(tenantId: string, id: string): Promise<Instance | undefined>;
  /** Instances whose parent is `parentId`, in id order. */
  listChildren(tenantId: string, parentId: string): Promise<Instance[]>;
  getTask(tenantId: string, id: string): Promise<Task | undefined>;
  /** A task and the instance (referral) it belongs to, in one read. */
  getTaskWithInstance(
    tenantId: string,
    taskId: string,
  ): Promise<{ task: Task; instance: Instance } | undefined>;
  /** Tasks of one instance (referral), in id order. */
  listTasksOfInstance(tenantId: string, instanceId: string): Promise<Task[]>;
  countTasksByStatus(tenantId: string, instanceId: string): Promise<StatusCounts>;
  /** Open tasks of the assignees plus tasks claimed by `claimedBy`, in id order. */
  inbox(q: InboxQuery): Promise<Task[]>;
  /** Tasks of the assignees (optionally in one status), in id order. */
  assignedTasks(q: AssignedTasksQuery): Promise<Task[]>;
  /** Done or cancelled tasks of the assignees, or done by a user, newest first. */
  finishedTasks(q: FinishedTasksQuery): Promise<Task[]>;
  /** Root instances of kind `process` started by the user, in id order. */
  listProcesses(q: ProcessQuery): Promise<Instance[]>;
  /** Whether `userId` completed a task of the process other than `exceptTaskId`. */
  completedInProcess(
    tenantId: string,
    rootInstanceId: string,
    userId: string,
    exceptTaskId: string,
  ): Promise<boolean>;
  /** The trail of one task or of one process's tasks, in the order written. */
  listTaskEvents(q: TaskEventQuery): Promise<TaskEvent[]>;
}

/** What a completion needs to know about a task's referral; none of it ever changes. */
export type ReferralFacts = Pick<
  Instance,
  | "id"
  | "tenantId"
  | "definitionKey"
  | "parentInstanceId"
  | "rootInstanceId"
  | "startedBy"
  | "onAllCompleted"
>;

/** The rows of a new referral and its open tasks, built by the engine. */
export interface NewReferral {
  referral: Instance;
  tasks: Task[];
}

/** `TaskStore.startProcess`: a root instance, and its definition unless it is known to exist. */
export interface StartProcess {
  /** Inserted unless (tenant, key) exists; the root takes the id of the row that is there. */
  definition: Definition;
  /** True when the definition is known to be committed (definitions are never deleted). */
  definitionExists: boolean;
  root: Instance;
}

/** `TaskStore.assign`: a referral and its tasks under the root of an existing tree, minus what the root decides. */
export interface AssignUnderRoot {
  tenantId: string;
  /** Any instance of the tree; the referral attaches to its root. */
  parentInstanceId: string;
  /** The referral's definition; null: the root's. */
  definition: Pick<Definition, "id" | "key"> | null;
  referral: Pick<Instance, "id" | "vars" | "startedBy" | "createdAt" | "onAllCompleted">;
  tasks: Pick<Task, "id" | "assigneeKind" | "assigneeId">[];
  /** What every task of the referral shows (title, due, …). */
  details: TaskDetails;
}

/** What a completion writes on its task: done, by whom, when, with what and which action. */
export type CompletionPatch = Pick<
  Task,
  "status" | "completedBy" | "completedAt" | "vars" | "action" | "comment"
> & { change: TaskChange };

/** A conditional write: only while the task is still as the engine read it. */
export interface TaskAsRead {
  tenantId: string;
  /**
   * Written only while its status — and, when claimed, its claimer — and its
   * assignee are unchanged (a reassignment since the read fails the write).
   */
  task: Pick<
    Task,
    "id" | "instanceId" | "rootInstanceId" | "status" | "claimedBy" | "assigneeKind" | "assigneeId"
  >;
  patch: CompletionPatch;
}

/** `TaskStore.complete`: everything the engine decided before the write. */
export interface CompletionPlan extends TaskAsRead {
  /**
   * The referral's onAllCompleted as rows (null: it has none): inserted only if
   * this completion leaves the referral without an open or claimed task and
   * takes its join — exactly once per referral, whoever completes last.
   */
  join: NewReferral | null;
  /** `next` of the request as rows under the task's root, inserted with the completion. */
  next: NewReferral | null;
}

/**
 * What a completion did. Not written: `task` — the task is gone or no longer
 * as read; `root` — a join or `next` had to be inserted under a root that is
 * completed. Nothing at all is written then.
 */
export type CompletionOutcome =
  | { written: false; because: "task" | "root" }
  | {
      written: true;
      /** The referral's task counts after the write. */
      counts: StatusCounts;
      /** Whether this completion completed the referral. */
      closed: boolean;
      /** Whether the plan's join was inserted. */
      joined: boolean;
    };

/**
 * The human-task store: reads, and one command per use case. The engine
 * decides — rules, checks on the task as read, the rows of a join or an
 * assignment — and a command applies that decision atomically and
 * conditionally, saying what happened; how (one statement, a locked
 * transaction) is the adapter's business. A command that reports "not
 * written" has written nothing.
 */
export interface TaskStore extends StoreReads {
  /**
   * A task and its referral's facts, to plan a completion. The status may be
   * out of date by the time a command runs — every command is conditional on
   * it — so an adapter may answer from rows it inserted itself.
   */
  findTaskToComplete(
    tenantId: string,
    taskId: string,
  ): Promise<{ task: Task; referral: ReferralFacts } | undefined>;
  /** Inserts the root (and the definition if absent); returns the definition as stored. */
  startProcess(cmd: StartProcess): Promise<Definition>;
  /**
   * Under the root of `parentInstanceId`'s tree, only while it is running:
   * moves its process state from `notStarted` to `open` and inserts the
   * referral (parent and root: that root) with one open task per entry of
   * `tasks`, assigned by the referral's `startedBy`. Returns the root as it is
   * afterwards, or undefined — having written nothing — when the instance does
   * not exist or its root is completed.
   */
  assign(plan: AssignUnderRoot): Promise<Instance | undefined>;
  /** Inserts a referral that is its own root, with its tasks. */
  assignNewTree(rows: NewReferral): Promise<void>;
  /** Claims an open task for `claimedBy`. False when it is gone or no longer open. */
  claim(cmd: {
    tenantId: string;
    taskId: string;
    claimedBy: string;
    claimedAt: number;
  }): Promise<boolean>;
  /**
   * Appends a `commented` event to the task's trail (it changes none of the
   * task's columns), with the task as it stands. Undefined when there is no such task.
   */
  addComment(c: {
    tenantId: string;
    taskId: string;
    actor: string;
    at: number;
    text: string;
  }): Promise<TaskEvent | undefined>;
  /**
   * Gives the task to another assignee — a delegation, its resolution, a
   * reassignment: open and unclaimed, with `handover`'s owner and delegation —
   * only while it is still as read (status, claimer, assignee). False when it
   * changed or is gone.
   */
  handOver(cmd: {
    tenantId: string;
    task: TaskAsRead["task"] & Pick<Task, "assigneeKind" | "assigneeId">;
    handover: Handover;
    change: TaskChange;
  }): Promise<boolean>;
  /** Reopens a task claimed by `claimedBy`. False when it is gone or not claimed by them. */
  release(cmd: {
    tenantId: string;
    taskId: string;
    claimedBy: string;
    at: number;
  }): Promise<boolean>;
  /**
   * Completes the task as read; if that leaves its referral without an open or
   * claimed task, completes the referral and takes its join (see
   * CompletionPlan); inserts `next`. Completions within one tree are
   * serialised, so of two last tasks finishing at once exactly one sees the
   * other done and takes the join.
   */
  complete(plan: CompletionPlan): Promise<CompletionOutcome>;
  /**
   * Completes the task as read, cancels every other open or claimed task of its
   * tree and completes the tree (root process state `closed`).
   */
  completeAndEnd(
    plan: TaskAsRead & { othersCancelled: TaskChange },
  ): Promise<{ written: false } | { written: true; cancelled: number }>;
  /**
   * Cancels every open or claimed task of the referral and completes it (a
   * `ctx.humanTask` that timed out or was given up). Returns how many tasks it
   * cancelled.
   */
  cancelReferral(tenantId: string, referralId: string, at: number, reason: string): Promise<number>;
  /**
   * Two executions of a run may both have made the referral of one
   * `ctx.humanTask` call (a lease takeover). Settles it under the root's lock,
   * so one settlement at a time: the first other referral under `rootInstanceId`
   * that `sameCall` accepts (by its vars) and that is still live (a task not
   * cancelled, or no task yet) wins — `referralId` is cancelled and the winner's
   * id returned; without one, `referralId` is returned.
   */
  keepOneReferral(c: {
    tenantId: string;
    rootInstanceId: string;
    referralId: string;
    sameCall: (vars: Vars | null) => boolean;
    at: number;
  }): Promise<string>;
}
