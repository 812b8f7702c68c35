/**
 * Delegate, resolve, reassign (engine/human-tasks/task-handover.ts): giving a
 * task to someone else, each by the actor in X-Actor-Id, each an event of the
 * task's trail with the comment as its reason.
 */
import type { FastifyInstance } from "fastify";
import type { AssigneeRequest } from "../../domain/assignee.ts";
import { ref } from "../openapi/component-schemas.ts";
import { taskExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { actorContext, type ActorHeaders } from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import { actorHeaders, idParams, idSchema } from "../openapi/schema-primitives.ts";
import { taskView } from "../views/inbox-views.ts";
import { optionalBody } from "../hooks/json-body.ts";
import { MAX_COMMENT_LENGTH } from "../../domain/task-event.ts";

interface IdParams {
  id: string;
}

const comment = {
  type: "string",
  maxLength: MAX_COMMENT_LENGTH,
  description: "Why: the reason of the trail's event.",
} as const;

const handoverSchema = (
  summary: string,
  description: string,
  body: object,
  example: object,
  answer: object,
) => ({
  tags: ["tasks"],
  summary,
  description,
  headers: actorHeaders,
  params: idParams,
  body: { ...body, examples: [example] },
  response: {
    200: jsonResponse("The task, open for its new assignee", ref("Task"), answer),
    ...apiErrors({ body: true }, "NotFound", "Conflict"),
  },
});

export function taskHandoverRoutes(
  app: FastifyInstance,
  { engine }: RouteOptions,
  done: () => void,
) {
  app.post<{
    Params: IdParams;
    Headers: ActorHeaders;
    Body: { to: string; comment?: string };
  }>(
    "/v1/tasks/:id/delegate",
    {
      schema: handoverSchema(
        "Delegate a task: the delegate resolves it, then it comes back to its owner",
        "Whoever holds the task (a user task's assignee, a claimed group task's claimer) " +
          "hands it to the user `to`. It becomes theirs, open, with `delegation: pending` and " +
          "its `owner` the delegator; nobody completes it until the delegate resolves it.",
        {
          type: "object",
          required: ["to"],
          properties: { to: idSchema, comment },
        },
        { to: "dave", comment: "Dave knows this supplier" },
        {
          ...taskExample,
          assignee: { kind: "user", id: "dave" },
          owner: "bob",
          delegation: "pending",
        },
      ),
    },
    async (req) =>
      taskView(
        await engine.delegate(actorContext(req), req.params.id, {
          to: req.body.to,
          comment: req.body.comment,
        }),
      ),
  );

  app.post<{ Params: IdParams; Headers: ActorHeaders; Body: { comment?: string } }>(
    "/v1/tasks/:id/resolve",
    {
      preValidation: optionalBody,
      schema: handoverSchema(
        "Resolve a delegated task: back to its owner",
        "The delegate gives the task back to its owner, who completes it " +
          "(`delegation: resolved`). The body is optional.",
        { type: "object", properties: { comment } },
        { comment: "Prices checked; see the attached quote" },
        { ...taskExample, owner: "bob", delegation: "resolved" },
      ),
    },
    async (req) =>
      taskView(
        await engine.resolve(actorContext(req), req.params.id, { comment: req.body.comment }),
      ),
  );

  app.post<{
    Params: IdParams;
    Headers: ActorHeaders;
    Body: { assignee: AssigneeRequest; comment?: string };
  }>(
    "/v1/tasks/:id/reassign",
    {
      schema: handoverSchema(
        "Reassign a task to another user or group",
        "The task's holder, owner or assigner gives it to another user or group: open, " +
          "unclaimed, any delegation ended.",
        {
          type: "object",
          required: ["assignee"],
          properties: {
            assignee: {
              type: "object",
              required: ["kind", "id"],
              additionalProperties: false,
              properties: { kind: { type: "string", enum: ["user", "group"] }, id: idSchema },
            },
            comment,
          },
        },
        { assignee: { kind: "group", id: "finance" }, comment: "Finance decides these" },
        { ...taskExample, assignee: { kind: "group", id: "finance" } },
      ),
    },
    async (req) =>
      taskView(
        await engine.reassign(actorContext(req), req.params.id, {
          assignee: req.body.assignee,
          comment: req.body.comment,
        }),
      ),
  );
  done();
}
