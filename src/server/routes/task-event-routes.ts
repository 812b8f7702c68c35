/**
 * The audit trail over REST: a task's events, a process's, and comments
 * (engine/human-tasks/task-trail.ts). Reads are the tenant's, as
 * GET /v1/tasks/{id} is; a comment names its author in X-Actor-Id.
 */
import type { FastifyInstance } from "fastify";
import { ref } from "../openapi/component-schemas.ts";
import { pageExample, taskEventExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import {
  actorContext,
  tenantContext,
  type ActorHeaders,
  type TenantHeaders,
} from "../hooks/request-context.ts";
import { coerceLimit, pageRequest } from "../requests/pagination.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  actorHeaders,
  idParams,
  pageQueryProperties,
  tenantHeaders,
  type PageQuery,
} from "../openapi/schema-primitives.ts";
import { pageView } from "../views/inbox-views.ts";
import { taskEventView } from "../views/task-event-views.ts";
import { MAX_COMMENT_LENGTH } from "../../domain/task-event.ts";

interface IdParams {
  id: string;
}

const eventPage = (summary: string, description: string) => ({
  tags: ["tasks"],
  summary,
  description,
  headers: tenantHeaders,
  params: idParams,
  querystring: {
    type: "object",
    additionalProperties: false,
    properties: { ...pageQueryProperties },
  },
  response: {
    200: jsonResponse(
      "A page of events, oldest first",
      ref("TaskEventPage"),
      pageExample(taskEventExample),
    ),
    ...apiErrors({}, "NotFound"),
  },
});

export function taskEventRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.get<{ Params: IdParams; Headers: TenantHeaders; Querystring: PageQuery }>(
    "/v1/tasks/:id/events",
    {
      preValidation: coerceLimit,
      schema: eventPage(
        "A task's audit trail",
        "Every change of the task — created, claimed, released, completed (with its action " +
          "and comment), cancelled, commented, … — with who made it (null: the engine), when " +
          "and why, each written in the same transaction as the change.",
      ),
    },
    async (req) => {
      const page = await engine.taskEvents(
        tenantContext(req),
        req.params.id,
        pageRequest(req.query),
      );
      return pageView(page, taskEventView);
    },
  );

  app.get<{ Params: IdParams; Headers: TenantHeaders; Querystring: PageQuery }>(
    "/v1/instances/:id/events",
    {
      preValidation: coerceLimit,
      schema: {
        ...eventPage(
          "A process's audit trail",
          "The events of every task of the process the instance belongs to (its root's " +
            "whole tree), in the order they were written.",
        ),
        tags: ["instances"],
      },
    },
    async (req) => {
      const page = await engine.instanceEvents(
        tenantContext(req),
        req.params.id,
        pageRequest(req.query),
      );
      return pageView(page, taskEventView);
    },
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: { text: string } }>(
    "/v1/tasks/:id/comments",
    {
      schema: {
        tags: ["tasks"],
        summary: "Comment on a task",
        description:
          "Adds a `commented` event to the task's trail, by the actor. Any user the " +
          "directory knows may comment, on a task in any status.",
        headers: actorHeaders,
        params: idParams,
        body: {
          type: "object",
          required: ["text"],
          properties: { text: { type: "string", minLength: 1, maxLength: MAX_COMMENT_LENGTH } },
          examples: [{ text: "Checked with finance: within budget." }],
        },
        response: {
          201: jsonResponse("The comment, as an event of the trail", ref("TaskEvent"), {
            ...taskEventExample,
            type: "commented",
            comment: "Checked with finance: within budget.",
          }),
          ...apiErrors({ body: true }, "NotFound"),
        },
      },
    },
    async (req, reply) => {
      const event = await engine.comment(actorContext(req), req.params.id, req.body.text);
      return reply.code(201).send(taskEventView(event));
    },
  );
  done();
}
