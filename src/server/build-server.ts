/**
 * The Fastify app (not listening): schemas, error mapping, OpenAPI and health
 * at the root; the /v1 routes inside a scope guarded by the API key.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { TaskflowConfig } from "../config/config.ts";
import { assertKeysOutsideDevelopment } from "../config/validate-config.ts";
import { MAX_ID_LENGTH } from "../domain/limits.ts";
import type { DurableRuns } from "../engine/durable/runs-api.ts";
import type { HumanTaskApi } from "../engine/human-task-api.ts";
import { assignmentRoutes } from "./assignment-routes.ts";
import { requireApiKey } from "./auth.ts";
import { installClosingGuard } from "./closing-guard.ts";
import { registerSchemas } from "./component-schemas.ts";
import { definitionRoutes } from "./definition-routes.ts";
import { installErrorHandling } from "./error-mapping.ts";
import { healthRoute } from "./health-route.ts";
import { instanceRoutes } from "./instance-routes.ts";
import { installJsonParser } from "./json-body.ts";
import { createLogger, genReqId, REQUEST_ID_HEADER, withRedaction } from "./logging.ts";
import { registerOpenApi } from "./openapi.ts";
import { processRoutes } from "./process-routes.ts";
import { readinessRoute, type ReadinessChecks } from "./readiness-route.ts";
import { installRateLimit } from "./rate-limit.ts";
import type { RouteOptions } from "./route-options.ts";
import { runRoutes } from "./run-routes.ts";
import { taskRoutes } from "./task-routes.ts";

export interface BuildServerOptions {
  engine: HumanTaskApi;
  config: TaskflowConfig;
  /** Defaults to a pino logger at config.logLevel; the API key is redacted either way. */
  logger?: Logger | undefined;
  /** The durable runs' use cases; without them the /v1/runs routes are absent. */
  runs?: DurableRuns | undefined;
  /** What GET /readyz checks, by name (e.g. the store's ping); none: always ready. */
  readiness?: ReadinessChecks | undefined;
}

const RESOURCES = [processRoutes, assignmentRoutes, taskRoutes, instanceRoutes, definitionRoutes];

export function buildServer({
  engine,
  config,
  logger,
  runs,
  readiness = {},
}: BuildServerOptions): FastifyInstance {
  // Also checked by loadConfig; repeated so a hand-built config cannot serve without keys.
  assertKeysOutsideDevelopment(config);
  // Typed as Fastify's logger interface so the app is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = logger ? withRedaction(logger) : createLogger(config);
  const app = Fastify({
    loggerInstance,
    genReqId,
    bodyLimit: config.bodyLimit,
    // Route params are ids up to MAX_ID_LENGTH; the default 100 would turn longer ones into 404s.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 3 },
    // Bodies keep strict JSON types ("5" is not a number); query limits are coerced in pagination.ts.
    ajv: { customOptions: { coerceTypes: false } },
    // closing-guard.ts answers those requests as problem+json instead.
    return503OnClosing: false,
  });

  installClosingGuard(app);
  installJsonParser(app);
  installErrorHandling(app);
  registerSchemas(app);
  app.addHook("onRequest", async (req, reply) => {
    void reply.header(REQUEST_ID_HEADER, req.id);
  });

  registerOpenApi(app);
  void app.register(healthRoute);
  void app.register(readinessRoute, { checks: readiness });
  void app.register(async (api) => {
    api.addHook("onRequest", requireApiKey(config.apiKeys));
    installRateLimit(api, config);
    for (const routes of RESOURCES) await api.register(routes, { engine } satisfies RouteOptions);
    if (runs) await api.register(runRoutes, { runs });
  });
  return app;
}
