/** Instances: the tree under an instance, and the completion of a referral. */
import type { FastifyInstance } from "fastify";
import { problemResponses, ref } from "./component-schemas.ts";
import { tenantContext, type TenantHeaders } from "./request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import { idParams, tenantHeaders } from "./schema-primitives.ts";
import { completionView, instanceTreeView } from "./views.ts";

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
        headers: tenantHeaders,
        params: idParams,
        response: { 200: ref("InstanceTree"), ...problemResponses },
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
        headers: tenantHeaders,
        params: idParams,
        response: { 200: ref("Completion"), ...problemResponses },
      },
    },
    async (req) => completionView(await engine.completion(tenantContext(req), req.params.id)),
  );
  done();
}
