/**
 * The reads that need no acting user (docs/api.md: tasks, instances,
 * definitions, runs by id and lists of runs). Shared by TaskflowClient and by
 * the actor-bound ActingClient, which sends its `X-Actor-Id` on them too.
 */
import type {
  Completion,
  Definition,
  InstanceTree,
  Page,
  PageOptions,
  Run,
  RunEvent,
  RunHistory,
  RunHistoryOptions,
  RunListOptions,
  Task,
  TaskEvent,
} from "./client-types.ts";
import { path, type HttpRequest, type HttpTransport } from "./http-transport.ts";
import { createdRange } from "./created-range.ts";
import { items } from "./paging.ts";

export class TaskflowReader {
  /** @internal */
  protected constructor(
    protected readonly http: HttpTransport,
    protected readonly actor: string | undefined,
  ) {}

  /** `X-Tenant-Id` of every call, or undefined for the server's `default`. */
  get tenantId(): string | undefined {
    return this.http.tenantId;
  }

  /** `GET /v1/tasks/{id}` */
  getTask(taskId: string): Promise<Task> {
    return this.get(path`/v1/tasks/${taskId}`);
  }

  /** `GET /v1/tasks/{id}/events`: one page of the task's audit trail, oldest first. */
  listTaskEvents(taskId: string, options: PageOptions = {}): Promise<Page<TaskEvent>> {
    return this.get(path`/v1/tasks/${taskId}/events`, {
      limit: options.limit,
      cursor: options.cursor,
    });
  }

  /** `GET /v1/instances/{id}/events`: one page of the process's audit trail, oldest first. */
  listInstanceEvents(instanceId: string, options: PageOptions = {}): Promise<Page<TaskEvent>> {
    return this.get(path`/v1/instances/${instanceId}/events`, {
      limit: options.limit,
      cursor: options.cursor,
    });
  }

  /** `GET /v1/instances/{id}`: the instance with its children and tasks. */
  getInstance(instanceId: string): Promise<InstanceTree> {
    return this.get(path`/v1/instances/${instanceId}`);
  }

  /** `GET /v1/instances/{id}/completion`: task counts of a referral. */
  getCompletion(instanceId: string): Promise<Completion> {
    return this.get(path`/v1/instances/${instanceId}/completion`);
  }

  /** `GET /v1/definitions`: one page. */
  listDefinitions(options: PageOptions = {}): Promise<Page<Definition>> {
    return this.get("/v1/definitions", { limit: options.limit, cursor: options.cursor });
  }

  /** Every definition, following `nextCursor`. */
  listDefinitionsAll(options: PageOptions = {}): AsyncGenerator<Definition> {
    return items((cursor) => this.listDefinitions({ ...options, cursor }), options.cursor);
  }

  /** `GET /v1/definitions/{key}` */
  getDefinition(key: string): Promise<Definition> {
    return this.get(path`/v1/definitions/${key}`);
  }

  /** `GET /v1/runs/{id}`. `I` and `O` only type `input` and `output`; nothing is checked. */
  getRun<I = unknown, O = unknown>(runId: string): Promise<Run<I, O>> {
    return this.get(path`/v1/runs/${runId}`);
  }

  /** `GET /v1/runs/{id}/history`: a page of the current generation's events in `seq` order. */
  getRunHistory(runId: string, options: RunHistoryOptions = {}): Promise<RunHistory> {
    const { limit, cursor } = options;
    return this.get(path`/v1/runs/${runId}/history`, { limit, cursor });
  }

  /** Every event of the current generation, in `seq` order, following `nextCursor`. */
  getRunHistoryAll(runId: string, options: RunHistoryOptions = {}): AsyncGenerator<RunEvent> {
    return items((cursor) => this.getRunHistory(runId, { ...options, cursor }), options.cursor);
  }

  /** `GET /v1/runs?status=&workflow=&startedBy=&createdAfter=&createdBefore=`: one page, in id order. */
  listRuns(options: RunListOptions = {}): Promise<Page<Run>> {
    const { status, workflow, startedBy, limit, cursor } = options;
    const query = { status, workflow, startedBy, ...createdRange(options), limit, cursor };
    return this.get("/v1/runs", query);
  }

  /** Every run matching the filters, following `nextCursor`. */
  listRunsAll(options: RunListOptions = {}): AsyncGenerator<Run> {
    return items((cursor) => this.listRuns({ ...options, cursor }), options.cursor);
  }

  protected async get<T>(p: string, query?: HttpRequest["query"]): Promise<T> {
    return (await this.http.send<T>({ method: "GET", path: p, query, actorId: this.actor })).body;
  }
}
