/** Process definitions of the tenant. */
import type { FastifyInstance } from "fastify";
import { problemResponses, ref } from "./component-schemas.ts";
import { coerceLimit, pageRequest } from "./pagination.ts";
import { tenantContext, type TenantHeaders } from "./request-context.ts";
import type { RouteOptions } from "./route-options.ts";
import {
  idSchema,
  pageQueryProperties,
  tenantHeaders,
  type PageQuery,
} from "./schema-primitives.ts";
import { definitionView, pageView } from "./views.ts";

export function definitionRoutes(app: FastifyInstance, { engine }: RouteOptions, done: () => void) {
  app.get<{ Querystring: PageQuery; Headers: TenantHeaders }>(
    "/v1/definitions",
    {
      preValidation: coerceLimit,
      schema: {
        tags: ["definitions"],
        summary: "Definitions, in creation order",
        headers: tenantHeaders,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { ...pageQueryProperties },
        },
        response: { 200: ref("DefinitionPage"), ...problemResponses },
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
        headers: tenantHeaders,
        params: { type: "object", required: ["key"], properties: { key: idSchema } },
        response: { 200: ref("Definition"), ...problemResponses },
      },
    },
    async (req) => definitionView(await engine.getDefinition(tenantContext(req), req.params.key)),
  );
  done();
}
