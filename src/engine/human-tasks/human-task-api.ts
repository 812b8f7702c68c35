/**
 * The human-task use cases, as the server and embedding apps see them.
 * Implemented by HumanTaskEngine (human-task-engine.ts).
 */
import type { AssignmentRequest, NextAssignment } from "../../domain/assignment.ts";
import type { Completion } from "../../domain/completion.ts";
import type { CreatedRange } from "../../domain/created-range.ts";
import type { Definition } from "../../domain/definition.ts";
import type { Instance, ProcessState } from "../../domain/instance.ts";
import type { Task } from "../../domain/task.ts";
import type { TaskListStatus } from "../../domain/task-list.ts";
import type { Vars } from "../../domain/vars.ts";
import type { AssigneeRequest } from "../../domain/assignee.ts";
import type { CompletionRequest } from "./completion-input.ts";
import type { TaskEvent } from "../../domain/task-event.ts";
import type { ActorContext, TenantContext } from "../actor-context.ts";

export interface Page<T> {
  items: T[];
  /** Id of the last item when more may follow; the server turns it into an opaque cursor. */
  nextAfter: string | null;
}

export interface PageRequest {
  limit?: number | undefined;
  after?: string | undefined;
}

export interface StartResult {
  definitionKey: string;
  instanceId: string;
}

export interface AssignResult {
  instanceId: string;
  /** The first task (the only one for user and group assignees). */
  task: Task;
  tasks: Task[];
}

export interface CompleteResult {
  task: Task;
  /** Completion of the task's referral after this completion. */
  completion: Completion;
  /** The assignment this completion caused: the explicit `next`, else the join, else null. */
  next: AssignResult | null;
  /** The parallel join this completion performed, if any (also in `next` when there was no explicit next). */
  joined: AssignResult | null;
}

export interface CompleteAndEndResult {
  task: Task;
  /** How many other open or claimed tasks of the tree were cancelled. */
  cancelled: number;
  rootInstanceId: string;
}

export interface InstanceTree extends Instance {
  children: InstanceTree[];
  tasks: Task[];
}

export interface HumanTaskApi {
  start(
    ctx: ActorContext,
    req: { processKey: string; name?: string | undefined; vars?: Vars | undefined },
  ): Promise<StartResult>;
  assign(ctx: ActorContext, req: AssignmentRequest): Promise<AssignResult>;
  claim(ctx: ActorContext, taskId: string): Promise<Task>;
  release(ctx: ActorContext, taskId: string): Promise<Task>;
  complete(
    ctx: ActorContext,
    taskId: string,
    req: CompletionRequest & { next?: NextAssignment | undefined },
  ): Promise<CompleteResult>;
  completeAndEnd(
    ctx: ActorContext,
    taskId: string,
    req: CompletionRequest,
  ): Promise<CompleteAndEndResult>;
  getTask(ctx: TenantContext, taskId: string): Promise<Task>;
  /** Hands the task to `to`, who resolves it; it then comes back to its owner to complete. */
  delegate(
    ctx: ActorContext,
    taskId: string,
    req: { to: string; comment?: string | undefined },
  ): Promise<Task>;
  /** The delegate gives the task back to its owner. */
  resolve(ctx: ActorContext, taskId: string, req: { comment?: string | undefined }): Promise<Task>;
  /** Gives the task to another user or group (its holder, owner or assigner). */
  reassign(
    ctx: ActorContext,
    taskId: string,
    req: { assignee: AssigneeRequest; comment?: string | undefined },
  ): Promise<Task>;
  /** Adds a comment to the task's trail (any user the directory knows, any status). */
  comment(ctx: ActorContext, taskId: string, text: string): Promise<TaskEvent>;
  /** The task's audit trail, oldest first. */
  taskEvents(ctx: TenantContext, taskId: string, page: PageRequest): Promise<Page<TaskEvent>>;
  /** The trail of every task of the process the instance belongs to, oldest first. */
  instanceEvents(
    ctx: TenantContext,
    instanceId: string,
    page: PageRequest,
  ): Promise<Page<TaskEvent>>;
  /**
   * Open tasks of the user (own, of the user's groups) plus those the user claimed; with
   * `status`, another list of the user's (human-tasks/task-lists.ts). Default: open.
   */
  userInbox(
    ctx: TenantContext | ActorContext,
    /** Absent: the actor's own (ctx must be an ActorContext; checked as the X-Actor-Id). */
    userId: string | undefined,
    page: PageRequest,
    status?: TaskListStatus,
  ): Promise<Page<Task>>;
  /** Open tasks of the group; with `status`, the group's tasks in that state. Default: open. */
  groupInbox(
    ctx: TenantContext,
    groupId: string,
    page: PageRequest,
    status?: TaskListStatus,
  ): Promise<Page<Task>>;
  getInstance(ctx: TenantContext, instanceId: string): Promise<InstanceTree>;
  completion(ctx: TenantContext, instanceId: string): Promise<Completion>;
  /** Root instances the user started; `created`: only those created in that window. */
  listProcesses(
    ctx: TenantContext | ActorContext,
    /** Absent: the actor's own (ctx must be an ActorContext; checked as the X-Actor-Id). */
    userId: string | undefined,
    state: ProcessState | undefined,
    page: PageRequest,
    created?: CreatedRange,
  ): Promise<Page<Instance>>;
  listDefinitions(ctx: TenantContext, page: PageRequest): Promise<Page<Definition>>;
  getDefinition(ctx: TenantContext, key: string): Promise<Definition>;
}
