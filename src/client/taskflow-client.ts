/**
 * The typed HTTP client for host backends (BFF) (`src/client`, see docs/api.md, Client).
 *
 *   const taskflow = new TaskflowClient({ baseUrl, apiKey: process.env.TASKFLOW_KEY });
 *   const bob = taskflow.as(session.userId);      // X-Actor-Id, from the BFF's own login
 *   for await (const task of bob.inboxAll()) …
 *   await bob.complete(taskId, { vars: { approved: true } });
 *
 * The acting user is bound with `as(actorId)` rather than set on the client: a
 * BFF acts for many users, and every call that acts or reads an inbox exists
 * only on the bound view, so it cannot be sent without an actor (or with the
 * previous request's). Reads that need no actor (a task, an instance, a run,
 * definitions, lists of runs) are on the client itself as well.
 *
 * Failures: a problem answer throws TaskflowHttpError (branch on `code`); no
 * usable answer (network, timeout, not JSON) throws TaskflowRequestError.
 */
import { ActingClient } from "./acting-client.ts";
import type { TaskflowClientOptions } from "./client-options.ts";
import { HttpTransport } from "./http-transport.ts";
import { TaskflowReader } from "./taskflow-reader.ts";

export class TaskflowClient extends TaskflowReader {
  constructor(options: TaskflowClientOptions);
  /** @internal */
  constructor(options: HttpTransport);
  constructor(options: TaskflowClientOptions | HttpTransport) {
    super(options instanceof HttpTransport ? options : new HttpTransport(options), undefined);
  }

  /**
   * The client acting as `actorId` (sent as `X-Actor-Id`), set by the backend
   * from its own login session — never from a browser's request body.
   */
  as(actorId: string): ActingClient {
    if (typeof actorId !== "string" || actorId === "") {
      throw new TypeError("TaskflowClient.as: actorId must be a non-empty string");
    }
    return new ActingClient(this.http, actorId);
  }

  /** The same client for another tenant (`X-Tenant-Id`); this one is unchanged. */
  withTenant(tenantId: string): TaskflowClient {
    return new TaskflowClient(this.http.withTenant(tenantId));
  }
}
