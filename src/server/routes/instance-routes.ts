/** Instances: the tree under an instance, and the completion of a referral. */
import type { FastifyInstance } from "fastify";
import { ref } from "../openapi/component-schemas.ts";
import { completionExample, instanceTreeExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { tenantContext, type TenantHeaders } from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import { idParams, tenantHeaders } from "../openapi/schema-primitives.ts";
import { completionView, instanceTreeView } from "../views/inbox-views.ts";

interface IdParams {
  id: string;
}

export function instanceRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.get<{ Params: IdParams; Headers: TenantHeaders }>(
    "/v1/instances/:id",
    {
      schema: {
        tags: ["instances"],
        summary: "An instance with its children and tasks",
        description:
          "A root (process) or referral instance of the tenant with its whole subtree: child " +
          "instances, recursively, and the tasks of each.",
        headers: tenantHeaders,
        params: idParams,
        response: {
          200: jsonResponse("The instance tree", ref("InstanceTree"), instanceTreeExample),
          ...apiErrors({}, "NotFound"),
        },
      },
    },
    async (req) => instanceTreeView(await engine.getInstance(tenantContext(req), req.params.id)),
  );

  app.get<{ Params: IdParams; Headers: TenantHeaders }>(
    "/v1/instances/:id/completion",
    {
      schema: {
        tags: ["instances"],
        summary: "Task counts of an instance; allCompleted when none is open or claimed",
        description:
          "How many of the instance's own tasks are open, claimed, done or cancelled " +
          "(a referral's tasks: one per assignee).",
        headers: tenantHeaders,
        params: idParams,
        response: {
          200: jsonResponse("The counts", ref("Completion"), completionExample),
          ...apiErrors({}, "NotFound"),
        },
      },
    },
    async (req) => completionView(await engine.completion(tenantContext(req), req.params.id)),
  );
  done();
}
