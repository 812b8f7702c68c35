/**
 * The health listener of a process that serves no API (`taskflow worker`, on
 * WF_WORKER_HEALTH_ADDR): the server's own /healthz and /readyz routes, no key,
 * and nothing else — every other request is a 404 problem. It carries no API,
 * so it needs no API key either: an orchestrator probes it as it probes a
 * server's /healthz.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { answerClientError, refuseConnect } from "../errors/client-errors.ts";
import { installClosingGuard } from "../hooks/closing-guard.ts";
import { registerSchemas } from "../openapi/component-schemas.ts";
import { installErrorHandling } from "../errors/error-mapping.ts";
import { answerFrameworkError } from "../errors/framework-errors.ts";
import { healthRoute } from "../routes/health-route.ts";
import { requireHostHeader } from "../hooks/host-header.ts";
import { genReqId, OneLinePerRequest, withRedaction } from "../hooks/logging.ts";
import { readinessRoute, type ReadinessChecks } from "../routes/readiness-route.ts";

/** Probes send no body: anything larger than a small JSON document is not one. */
const BODY_LIMIT = 16 * 1024;

export function buildHealthServer({
  logger,
  readiness,
}: {
  logger: Logger;
  /** What GET /readyz checks, by name. */
  readiness: ReadinessChecks;
}): FastifyInstance {
  // The same framework answers as the API server's (build-server.ts): problem+json throughout.
  // Typed as Fastify's logger interface so the app is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = withRedaction(logger);
  const app = Fastify({
    loggerInstance,
    logController: new OneLinePerRequest(),
    genReqId,
    bodyLimit: BODY_LIMIT,
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    http: { requireHostHeader: false },
    return503OnClosing: false,
  });
  refuseConnect(app.server, app.log);
  installClosingGuard(app);
  app.addHook("onRequest", requireHostHeader);
  installErrorHandling(app);
  registerSchemas(app);
  void app.register(healthRoute);
  void app.register(readinessRoute, { checks: readiness });
  return app;
}
