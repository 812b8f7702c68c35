/** The inbox and task transitions: claim, release, complete, complete-and-end. */
import type { FastifyInstance } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import type { TaskListStatus } from "../../domain/task-list.ts";
import type { Vars } from "../../domain/vars.ts";
import { optionalBody } from "../hooks/json-body.ts";
import { coerceLimit } from "../requests/pagination.ts";
import { taskListCursor, taskListPageRequest } from "../requests/task-list-cursor.ts";
import { toNextAssignment, type NextAssignmentBody } from "../requests/request-bodies.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import type { PageQuery } from "../openapi/schema-primitives.ts";
import { completeAndEndView, completeResultView, taskView } from "../views/inbox-views.ts";
import {
  getTasksSchema,
  getTasksByIdSchema,
  postTasksByIdClaimSchema,
  postTasksByIdReleaseSchema,
  postTasksByIdCompleteSchema,
  postTasksByIdCompleteAndEndSchema,
} from "./task-schemas.ts";

interface InboxQuery extends PageQuery {
  user?: string;
  group?: string;
  status?: TaskListStatus;
}

interface IdParams {
  id: string;
}

interface CompleteAndEndBody {
  vars?: Vars;
  action?: string;
  comment?: string;
}

interface CompleteBody extends CompleteAndEndBody {
  next?: NextAssignmentBody;
}

export function taskRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.get<{ Querystring: InboxQuery; Headers: ActorHeaders }>(
    "/v1/tasks",
    {
      preValidation: coerceLimit,
      schema: getTasksSchema,
    },
    async (req) => {
      const { user, group, status = "open" } = req.query;
      if (user !== undefined && group !== undefined) {
        throw taskflowError("InvalidParameter", { detail: "give either user or group, not both" });
      }
      const ctx = actorContext(req);
      const page = taskListPageRequest(req.query, status);
      // No user and no group: the actor's own list (the use case checks it as the X-Actor-Id).
      const result =
        group !== undefined
          ? await engine.groupInbox(ctx, group, page, status)
          : await engine.userInbox(ctx, user, page, status);
      return { items: result.items.map(taskView), nextCursor: taskListCursor(result, status) };
    },
  );

  app.get<{ Params: IdParams; Headers: TenantHeaders }>(
    "/v1/tasks/:id",
    {
      schema: getTasksByIdSchema,
    },
    async (req) => taskView(await engine.getTask(tenantContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/claim",
    {
      schema: postTasksByIdClaimSchema,
    },
    async (req) => taskView(await engine.claim(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/release",
    {
      schema: postTasksByIdReleaseSchema,
    },
    async (req) => taskView(await engine.release(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: CompleteBody }>(
    "/v1/tasks/:id/complete",
    {
      preValidation: optionalBody,
      schema: postTasksByIdCompleteSchema,
    },
    async (req) => {
      const { vars, next, action, comment } = req.body;
      const result = await engine.complete(actorContext(req), req.params.id, {
        vars,
        action,
        comment,
        next: next && toNextAssignment(next),
      });
      return completeResultView(result);
    },
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: CompleteAndEndBody }>(
    "/v1/tasks/:id/complete-and-end",
    {
      preValidation: optionalBody,
      schema: postTasksByIdCompleteAndEndSchema,
    },
    async (req) => {
      const { vars, action, comment } = req.body;
      const result = await engine.completeAndEnd(actorContext(req), req.params.id, {
        vars,
        action,
        comment,
      });
      return completeAndEndView(result);
    },
  );
  done();
}
