/** Process definitions of the tenant. */
import type { FastifyInstance } from "fastify";
import { ref } from "../openapi/component-schemas.ts";
import { definitionExample, pageExample } from "../openapi/openapi-examples.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { coerceLimit, pageRequest } from "../requests/pagination.ts";
import { tenantContext, type TenantHeaders } from "../hooks/request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  idSchema,
  pageQueryProperties,
  tenantHeaders,
  type PageQuery,
} from "../openapi/schema-primitives.ts";
import { definitionView, pageView } from "../views/inbox-views.ts";

export function definitionRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.get<{ Querystring: PageQuery; Headers: TenantHeaders }>(
    "/v1/definitions",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["definitions"],
        summary: "Definitions, in creation order",
        description:
          "The tenant's process definitions, paged. A definition is created by the first " +
          "POST /v1/processes that names its key.",
        headers: tenantHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { ...pageQueryProperties },
        },
        response: {
          200: jsonResponse(
            "A page of definitions",
            ref("DefinitionPage"),
            pageExample(definitionExample),
          ),
          ...apiErrors({}),
        },
      },
    },
    async (req) => {
      const page = await engine.listDefinitions(tenantContext(req), pageRequest(req.query));
      return pageView(page, definitionView);
    },
  );

  app.get<{ Params: { key: string }; Headers: TenantHeaders }>(
    "/v1/definitions/:key",
    {
      schema: {
        tags: ["definitions"],
        summary: "One definition by key",
        description: "The tenant's definition with this key.",
        headers: tenantHeaders,
        params: { type: "object", required: ["key"], properties: { key: idSchema } },
        response: {
          200: jsonResponse("The definition", ref("Definition"), definitionExample),
          ...apiErrors({}, "NotFound"),
        },
      },
    },
    async (req) => definitionView(await engine.getDefinition(tenantContext(req), req.params.key)),
  );
  done();
}
