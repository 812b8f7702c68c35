/**
 * Ports: the interfaces the engine needs from the outside world, implemented by
 * adapters and chosen by the composition root.
 *
 * Glossary
 * - tenant: every row and every query carries a tenant id; nothing crosses tenants.
 * - root: the instance a process starts with; referrals hang under it.
 * - referral: the instance one AssignTo creates; its tasks are the inbox records.
 * - page: a keyset page ordered by id (ids are UUIDv7, so by creation time);
 *   `after` is the last id of the previous page.
 * - lock: a row lock held until the transaction ends (SELECT … FOR UPDATE on
 *   PostgreSQL and MariaDB; SQLite serialises whole write transactions instead).
 */
import type { Definition } from "../domain/definition.ts";
import type { Instance, ProcessState } from "../domain/instance.ts";
import type { Task, TaskStatus } from "../domain/task.ts";
import type { StatusCounts } from "../domain/completion.ts";

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

export interface ProcessQuery extends PageQuery {
  tenantId: string;
  startedBy: string;
  state?: ProcessState | undefined;
}

/** Reads that need no transaction. */
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
  /** Root instances of kind `process` started by the user, in id order. */
  listProcesses(q: ProcessQuery): Promise<Instance[]>;
}

/** Writes, inside one transaction. Reads through a StoreTx see the transaction's own writes. */
export interface StoreTx extends StoreReads {
  /** Inserts unless (tenant, key) exists; returns the row that is there afterwards. */
  ensureDefinition(d: Definition): Promise<Definition>;
  insertInstance(i: Instance): Promise<void>;
  insertTasks(tasks: Task[]): Promise<void>;
  /** Reads and row-locks an instance until the transaction ends. */
  lockInstance(tenantId: string, id: string): Promise<Instance | undefined>;
  /**
   * Row-locks the root of a task's or an instance's tree and returns it, in one
   * round trip; only the root row is locked. Undefined when the task or
   * instance does not exist.
   */
  lockRootOf(
    tenantId: string,
    of: { taskId: string } | { instanceId: string },
  ): Promise<Instance | undefined>;
  /** Reads and row-locks a task until the transaction ends. */
  lockTask(tenantId: string, id: string): Promise<Task | undefined>;
  /**
   * Row-locks the root of a task's tree and reads the task with it, in one round
   * trip where the dialect allows (two on MariaDB: root, then task). Only the
   * root is certain to be locked; the task row may be read without a lock, so a
   * write that depends on what was read must be conditional on it (see
   * `completeTask`). Undefined when the task does not exist.
   */
  lockRootWithTask(
    tenantId: string,
    taskId: string,
  ): Promise<{ root: Instance; task: Task } | undefined>;
  /**
   * Row-locks the root of an instance's tree for a new assignment under it and,
   * if the root is running and its process state is `notStarted`, moves it to
   * `open` — one round trip where the dialect has UPDATE … RETURNING. Returns the
   * root as it is afterwards, or undefined when the instance does not exist. A
   * completed root is returned unchanged (the caller refuses it).
   */
  lockRootForAssignment(tenantId: string, instanceId: string): Promise<Instance | undefined>;
  /**
   * Conditional write for a completion: applies `patch` only while the task's
   * status is still `expect.status` and — when that is `claimed` — its claimer is
   * still `expect.claimedBy`, i.e. while everything a completion check reads is
   * unchanged. Undefined when the condition failed. With `count`, also the task
   * counts of its instance after the write (in the same round trip on
   * PostgreSQL), else `counts` is null.
   */
  completeTask(
    tenantId: string,
    task: Pick<Task, "id" | "instanceId" | "status" | "claimedBy">,
    patch: Pick<Task, "status" | "completedBy" | "completedAt" | "vars">,
    count: boolean,
  ): Promise<{ counts: StatusCounts | null } | undefined>;
  /**
   * The referral has no open or claimed task left: marks it completed (no-op if
   * it already is) and, if it carries an onAllCompleted, sets joined_at where it
   * is null. Returns the referral afterwards and whether this caller set
   * joined_at (true for exactly one caller, as `markJoined`); one round trip
   * where the dialect has UPDATE … RETURNING. Undefined when it does not exist.
   */
  closeReferral(
    tenantId: string,
    referralId: string,
    at: number,
  ): Promise<{ referral: Instance; joined: boolean } | undefined>;
  /** Inserts a referral and its tasks (one statement on PostgreSQL). */
  insertReferral(referral: Instance, tasks: Task[]): Promise<void>;
  /**
   * Conditional write: applies `patch` only while the task's status is one of
   * `from`. Returns whether a row changed — false means somebody else won.
   */
  updateTask(
    tenantId: string,
    id: string,
    from: readonly TaskStatus[],
    patch: Partial<
      Pick<Task, "status" | "claimedBy" | "claimedAt" | "completedBy" | "completedAt" | "vars">
    >,
  ): Promise<boolean>;
  /** Marks an instance completed (no-op if it already is). */
  completeInstance(tenantId: string, id: string, at: number): Promise<void>;
  setProcessState(tenantId: string, rootId: string, state: ProcessState): Promise<void>;
  /** Conditional write: sets joined_at only where it is null. True for the one caller that did it. */
  markJoined(tenantId: string, instanceId: string, at: number): Promise<boolean>;
  /** Cancels every open or claimed task under the root, except `exceptTaskId`. Returns how many. */
  cancelOpenTasksOfRoot(
    tenantId: string,
    rootId: string,
    exceptTaskId: string,
    at: number,
  ): Promise<number>;
  /** Marks the root and every instance under it completed (root process state `closed`). */
  completeTree(tenantId: string, rootId: string, at: number): Promise<void>;
}

/** What `Store.assignUnderRoot` writes: a referral and its tasks, minus what the root decides. */
export interface ReferralUnderRoot {
  tenantId: string;
  /** Any instance of the tree; the referral attaches to its root. */
  parentInstanceId: string;
  /** The referral's definition; null: the root's. */
  definition: Pick<Definition, "id" | "key"> | null;
  referral: Pick<Instance, "id" | "vars" | "startedBy" | "createdAt" | "onAllCompleted">;
  tasks: Pick<Task, "id" | "assigneeKind" | "assigneeId">[];
}

/** What `Store.completeInOneStatement` writes. */
export interface OneStatementCompletion {
  tenantId: string;
  /** The task as read: the write is conditional on its status (and claimer, when claimed). */
  task: Pick<Task, "id" | "instanceId" | "rootInstanceId" | "status" | "claimedBy">;
  patch: Pick<Task, "status" | "completedBy" | "completedAt" | "vars">;
  /** Write only while the root is running (needed when a join may follow). */
  requireRunningRoot: boolean;
  /**
   * The join's referral and its open tasks (with its id as instanceId), inserted
   * only if this completion takes the join.
   */
  join: { referral: Instance; tasks: Task[] } | null;
}

export interface Store extends StoreReads {
  readonly dialect: "sqlite" | "postgres" | "mysql";
  transaction<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * Runs fn without BEGIN/COMMIT: each statement commits on its own. Only for a
   * use case whose writes are one statement (a conditional write, one insert),
   * where a transaction would only add two round trips.
   */
  autocommit<T>(fn: (tx: StoreTx) => Promise<T>): Promise<T>;
  /**
   * An assignment under an existing tree as one atomic write: row-locks the root
   * of `parentInstanceId`'s tree and, only if it is running, moves its process
   * state from `notStarted` to `open` and inserts the referral (parent and root:
   * that root; status running) with one open task per entry of `tasks` (assigned
   * by the referral's `startedBy`). Returns the root as it is afterwards, or
   * undefined — having written nothing — when the instance does not exist or its
   * root is completed. One autocommit statement on PostgreSQL; a transaction
   * elsewhere.
   */
  assignUnderRoot(a: ReferralUnderRoot): Promise<Instance | undefined>;
  /** Whether `completeInOneStatement` exists here (PostgreSQL). */
  readonly completesInOneStatement: boolean;
  /**
   * A whole completion as one autocommit statement, under the same locks as the
   * transactional path, in the same order: row-locks the task's root; applies
   * `patch` to the task if its status (and claimer) are still as read (and the
   * root is running, if required); reads the referral's other tasks with a
   * locking read, so their latest committed state counts whatever the statement's
   * snapshot; if none is open or claimed, completes the referral and — if it has
   * an onAllCompleted and joined_at is null — sets joined_at and inserts `join`.
   * Undefined, having written nothing, when the task was not written. Otherwise
   * the referral's counts after the write, whether the referral was closed here,
   * and whether the join was inserted. Only where `completesInOneStatement`.
   */
  completeInOneStatement(
    c: OneStatementCompletion,
  ): Promise<{ counts: StatusCounts; closed: boolean; joined: boolean } | undefined>;
}

/** Who exists and who belongs where. */
export interface Directory {
  /** False for the open directory: any id is accepted and membership is not checked. */
  readonly checksIds: boolean;
  userExists(id: string): boolean;
  groupExists(id: string): boolean;
  /** The groups a user belongs to (empty for the open directory). */
  groupsOf(userId: string): readonly string[];
  /** The open directory answers true: it cannot know. */
  isMember(userId: string, groupId: string): boolean;
}

export interface Clock {
  now(): number;
}
