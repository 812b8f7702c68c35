/** AssignTo: a referral with its task(s), optionally carrying the next assignment (the join). */
import type { FastifyInstance } from "fastify";
import { ref } from "../openapi/component-schemas.ts";
import { assignResultExample, instanceExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { toAssignmentRequest, type AssignmentBody } from "../requests/request-bodies.ts";
import { actorContext, type ActorHeaders } from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  actorHeaders,
  idSchema,
  taskDetailsProperties,
  varsSchema,
} from "../openapi/schema-primitives.ts";
import { assignResultView } from "../views/inbox-views.ts";

export function assignmentRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.post<{ Body: AssignmentBody; Headers: ActorHeaders }>(
    "/v1/assignments",
    {
      schema: {
        tags: ["assignments"],
        summary: "Assign work: a referral under a root instance, with one task per assignee",
        description:
          "Give `parentInstanceId` (a root or any instance of its tree) or `definitionKey` " +
          "(with no parent, a new root is started). `assignedBy` is the X-Actor-Id.",
        headers: actorHeaders,
        body: {
          type: "object",
          required: ["assignee"],
          properties: {
            definitionKey: idSchema,
            parentInstanceId: idSchema,
            assignee: ref("AssigneeRequest"),
            vars: varsSchema,
            ...taskDetailsProperties,
            onAllCompleted: ref("NextAssignment"),
          },
          examples: [
            {
              parentInstanceId: instanceExample.id,
              assignee: { kind: "user", id: "bob" },
              vars: { days: 3 },
              title: "Approve 3 days of leave",
              priority: 70,
              dueAt: "2025-01-17T17:00:00.000Z",
              onAllCompleted: { assignee: { kind: "group", id: "clerks" } },
            },
          ],
        },
        response: {
          201: jsonResponse(
            "The referral and its task(s)",
            ref("AssignResult"),
            assignResultExample,
          ),
          ...apiErrors({ body: true }, "NotFound", "Conflict"),
        },
      },
    },
    async (req, reply) => {
      const result = await engine.assign(actorContext(req), toAssignmentRequest(req.body));
      return reply.code(201).send(assignResultView(result));
    },
  );
  done();
}
