/** The inbox and task transitions: claim, release, complete, complete-and-end. */
import type { FastifyInstance } from "fastify";
import { validation } from "../domain/errors.ts";
import type { Vars } from "../domain/vars.ts";
import { problemResponses, ref } from "./component-schemas.ts";
import { optionalBody } from "./json-body.ts";
import { assertKnownGroup, assertKnownUser } from "./known-ids.ts";
import { coerceLimit, pageRequest } from "./pagination.ts";
import { toNextAssignment, type NextAssignmentBody } from "./request-bodies.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "./request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  actorHeaders,
  idParams,
  idSchema,
  pageQueryProperties,
  tenantHeaders,
  varsSchema,
  type PageQuery,
} from "./schema-primitives.ts";
import { completeAndEndView, completeResultView, pageView, taskView } from "./views.ts";

interface InboxQuery extends PageQuery {
  user?: string;
  group?: string;
}

interface IdParams {
  id: string;
}

interface CompleteBody {
  vars?: Vars;
  next?: NextAssignmentBody;
}

const transitionSchema = (summary: string, response: object) => ({
  tags: ["tasks"],
  summary,
  headers: actorHeaders,
  params: idParams,
  response: { 200: response, ...problemResponses },
});

export function taskRoutes(
  app: FastifyInstance,
  { engine, directory }: RouteOptions,
  done: () => void,
) {
  app.get<{ Querystring: InboxQuery; Headers: ActorHeaders }>(
    "/v1/tasks",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["tasks"],
        summary: "An inbox: the user's (default: the actor) or a group's open tasks",
        description:
          "With `user`: open tasks assigned to the user or the user's groups, plus tasks the " +
          "user claimed. With `group`: the group's open tasks. Not both.",
        headers: actorHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { user: idSchema, group: idSchema, ...pageQueryProperties },
        },
        response: { 200: ref("TaskPage"), ...problemResponses },
      },
    },
    async (req) => {
      const { user, group } = req.query;
      if (user !== undefined && group !== undefined) {
        throw validation("give either user or group, not both");
      }
      const ctx = actorContext(req);
      const page = pageRequest(req.query);
      if (group !== undefined) assertKnownGroup(directory, "group", group);
      else if (user !== undefined) assertKnownUser(directory, "user", user);
      else assertKnownUser(directory, "X-Actor-Id", ctx.actorId);
      const result =
        group !== undefined
          ? await engine.groupInbox(ctx, group, page)
          : await engine.userInbox(ctx, user ?? ctx.actorId, page);
      return pageView(result, taskView);
    },
  );

  app.get<{ Params: IdParams; Headers: TenantHeaders }>(
    "/v1/tasks/:id",
    {
      schema: {
        tags: ["tasks"],
        summary: "One task",
        headers: tenantHeaders,
        params: idParams,
        response: { 200: ref("Task"), ...problemResponses },
      },
    },
    async (req) => taskView(await engine.getTask(tenantContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/claim",
    { schema: transitionSchema("Claim an open task (group: members only)", ref("Task")) },
    async (req) => taskView(await engine.claim(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders }>(
    "/v1/tasks/:id/release",
    { schema: transitionSchema("Put a claimed task back to open (claimer only)", ref("Task")) },
    async (req) => taskView(await engine.release(actorContext(req), req.params.id)),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: CompleteBody }>(
    "/v1/tasks/:id/complete",
    {
      preValidation: optionalBody,
      schema: {
        ...transitionSchema("Complete a task, optionally assigning the next step", {
          type: "object",
          required: ["task", "completion", "next", "joined"],
          properties: {
            task: ref("Task"),
            completion: ref("Completion"),
            next: { anyOf: [ref("AssignResult"), { type: "null" }] },
            joined: { anyOf: [ref("AssignResult"), { type: "null" }] },
          },
        }),
        body: {
          type: "object",
          properties: { vars: varsSchema, next: ref("NextAssignment") },
        },
      },
    },
    async (req) => {
      const { vars, next } = req.body;
      const result = await engine.complete(actorContext(req), req.params.id, {
        vars,
        next: next && toNextAssignment(next),
      });
      return completeResultView(result);
    },
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: { vars?: Vars } }>(
    "/v1/tasks/:id/complete-and-end",
    {
      preValidation: optionalBody,
      schema: {
        ...transitionSchema("Complete a task and end its whole process", {
          type: "object",
          required: ["task", "cancelled", "rootInstanceId"],
          properties: {
            task: ref("Task"),
            cancelled: { type: "integer", description: "Other open or claimed tasks cancelled" },
            rootInstanceId: { type: "string" },
          },
        }),
        body: { type: "object", properties: { vars: varsSchema } },
      },
    },
    async (req) => {
      const result = await engine.completeAndEnd(actorContext(req), req.params.id, {
        vars: req.body.vars,
      });
      return completeAndEndView(result);
    },
  );
  done();
}
