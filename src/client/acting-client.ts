/**
 * The client bound to one acting user: `client.as(actorId)`. Every call sends
 * that user as `X-Actor-Id`, so the calls that act (start, assign, claim,
 * release, complete, start/signal/cancel a run) or read an inbox exist only
 * here and cannot be made without an actor. Cheap to create: make one per
 * incoming request from the BFF's own login session.
 *
 * Every call that acts takes `{ idempotencyKey }` last: retrying it with the
 * same key (after a timeout or a 503) gets the first answer instead of acting
 * twice (docs/api.md, "Idempotency-Key").
 */
import type {
  AssignmentRequest,
  AssignResult,
  CompleteAndEndResult,
  CompleteRequest,
  CompleteResult,
  GroupInboxOptions,
  InboxOptions,
  Instance,
  Page,
  ProcessListOptions,
  RunAccepted,
  StartedProcess,
  StartedRun,
  StartProcessRequest,
  StartRunRequest,
  Task,
  TaskAssignee,
  TaskEvent,
  WriteOptions,
} from "./client-types.ts";
import { path, type HttpTransport } from "./http-transport.ts";
import { createdRange } from "./created-range.ts";
import { items } from "./paging.ts";
import { TaskflowReader } from "./taskflow-reader.ts";

export class ActingClient extends TaskflowReader {
  /** @internal Use `TaskflowClient#as`. */
  constructor(
    http: HttpTransport,
    /** The acting user: `X-Actor-Id` of every call. */
    readonly actorId: string,
  ) {
    super(http, actorId);
  }

  // ── processes ──

  /** `POST /v1/processes`: a root instance started by the actor (its definition made if missing). */
  startProcess(request: StartProcessRequest, options?: WriteOptions): Promise<StartedProcess> {
    return this.post("/v1/processes", request, options);
  }

  /** `GET /v1/processes`: root instances started by `user` (default: the actor). */
  listProcesses(options: ProcessListOptions = {}): Promise<Page<Instance>> {
    const { state, user, limit, cursor } = options;
    return this.get("/v1/processes", { state, user, ...createdRange(options), limit, cursor });
  }

  /** Every process matching the filters, following `nextCursor`. */
  listProcessesAll(options: ProcessListOptions = {}): AsyncGenerator<Instance> {
    return items((cursor) => this.listProcesses({ ...options, cursor }), options.cursor);
  }

  // ── assignments ──

  /** `POST /v1/assignments`: a referral with one task per assignee; `assignedBy` is the actor. */
  assign(request: AssignmentRequest, options?: WriteOptions): Promise<AssignResult> {
    return this.post("/v1/assignments", request, options);
  }

  // ── tasks ──

  /**
   * `GET /v1/tasks?user=&status=`: the inbox of `user` (default: the actor) — own, groups',
   * claimed; with `status`, the user's claimed, completed, cancelled or all tasks.
   */
  inbox(options: InboxOptions = {}): Promise<Page<Task>> {
    const { user, status, limit, cursor } = options;
    return this.get("/v1/tasks", { user: user ?? this.actorId, status, limit, cursor });
  }

  /** Every task of the inbox, following `nextCursor`. */
  inboxAll(options: InboxOptions = {}): AsyncGenerator<Task> {
    return items((cursor) => this.inbox({ ...options, cursor }), options.cursor);
  }

  /**
   * `GET /v1/tasks?group=&status=`: the group's open tasks (claimed ones have left it);
   * with `status`, its claimed, completed, cancelled or all tasks.
   */
  groupInbox(groupId: string, options: GroupInboxOptions = {}): Promise<Page<Task>> {
    const { status, limit, cursor } = options;
    return this.get("/v1/tasks", { group: groupId, status, limit, cursor });
  }

  /** Every task of the group's list, following `nextCursor`. */
  groupInboxAll(groupId: string, options: GroupInboxOptions = {}): AsyncGenerator<Task> {
    return items((cursor) => this.groupInbox(groupId, { ...options, cursor }), options.cursor);
  }

  /** `POST /v1/tasks/{id}/claim` → the task, `claimed` by the actor. 409 `NotOpen` if not open. */
  claim(taskId: string, options?: WriteOptions): Promise<Task> {
    return this.post(path`/v1/tasks/${taskId}/claim`, undefined, options);
  }

  /** `POST /v1/tasks/{id}/release` → the task, `open` again (only the claimer). */
  release(taskId: string, options?: WriteOptions): Promise<Task> {
    return this.post(path`/v1/tasks/${taskId}/release`, undefined, options);
  }

  /** `POST /v1/tasks/{id}/complete`, optionally assigning `next` under the same root. */
  complete(
    taskId: string,
    request: CompleteRequest = {},
    options?: WriteOptions,
  ): Promise<CompleteResult> {
    return this.post(path`/v1/tasks/${taskId}/complete`, request, options);
  }

  /** `POST /v1/tasks/{id}/delegate`: hand the task to `to`, who resolves it. */
  delegate(taskId: string, to: string, comment?: string, options?: WriteOptions): Promise<Task> {
    return this.post(path`/v1/tasks/${taskId}/delegate`, { to, comment }, options);
  }

  /** `POST /v1/tasks/{id}/resolve`: the delegate gives the task back to its owner. */
  resolve(taskId: string, comment?: string, options?: WriteOptions): Promise<Task> {
    return this.post(path`/v1/tasks/${taskId}/resolve`, { comment }, options);
  }

  /** `POST /v1/tasks/{id}/reassign`: give the task to another user or group. */
  reassign(
    taskId: string,
    assignee: TaskAssignee,
    comment?: string,
    options?: WriteOptions,
  ): Promise<Task> {
    return this.post(path`/v1/tasks/${taskId}/reassign`, { assignee, comment }, options);
  }

  /** `POST /v1/tasks/{id}/comments`: the comment, as an event of the task's trail. */
  comment(taskId: string, text: string, options?: WriteOptions): Promise<TaskEvent> {
    return this.post(path`/v1/tasks/${taskId}/comments`, { text }, options);
  }

  /** `POST /v1/tasks/{id}/complete-and-end`: complete, cancel the rest, close the process. */
  completeAndEnd(
    taskId: string,
    request: Omit<CompleteRequest, "next"> = {},
    options?: WriteOptions,
  ): Promise<CompleteAndEndResult> {
    return this.post(path`/v1/tasks/${taskId}/complete-and-end`, request, options);
  }

  // ── durable runs ──

  /**
   * `POST /v1/workflows/{name}/runs`. Idempotent by `id`: when a run with that id
   * exists, nothing is written and `created` is false (the server answered 200).
   */
  async startRun<I = unknown>(
    workflow: string,
    request: StartRunRequest<I> = {},
    options?: WriteOptions,
  ): Promise<StartedRun> {
    const { status, body } = await this.http.send<{ runId: string; status: StartedRun["status"] }>({
      method: "POST",
      path: path`/v1/workflows/${workflow}/runs`,
      body: request,
      actorId: this.actorId,
      idempotencyKey: options?.idempotencyKey,
    });
    return { runId: body.runId, status: body.status, created: status === 201 };
  }

  /**
   * `POST /v1/runs/{id}/signals/{name}`: `payload` (any JSON value; none means
   * `null`) is stored until the run waits for `name`. 409 `Conflict` once the run
   * has finished.
   */
  signalRun(
    runId: string,
    name: string,
    payload?: unknown,
    options?: WriteOptions,
  ): Promise<RunAccepted> {
    return this.post(path`/v1/runs/${runId}/signals/${name}`, payload, options);
  }

  /** `POST /v1/runs/{id}/cancel`: request cancellation (the run ends `cancelled` later). */
  cancelRun(runId: string, options?: WriteOptions): Promise<RunAccepted> {
    return this.post(path`/v1/runs/${runId}/cancel`, undefined, options);
  }

  private async post<T>(p: string, body?: unknown, options?: WriteOptions): Promise<T> {
    const { actorId } = this;
    const idempotencyKey = options?.idempotencyKey;
    return (await this.http.send<T>({ method: "POST", path: p, body, actorId, idempotencyKey }))
      .body;
  }
}
