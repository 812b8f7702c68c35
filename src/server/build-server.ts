/**
 * The Fastify app (not listening): schemas, error mapping, OpenAPI and health
 * at the root; the /v1 routes inside a scope guarded by the API key.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { TaskflowConfig } from "../config/config.ts";
import { eagerCompilers, lazyCompilers } from "./hooks/lazy-compilers.ts";
import { isDevelopment } from "../config/config.ts";
import {
  assertKeyLengthsOutsideDevelopment,
  assertKeysOutsideDevelopment,
} from "../config/validate-config.ts";
import { MAX_ID_LENGTH } from "../domain/limits.ts";
import {
  ApiKeys,
  type CacheLedger,
  type Coordination,
  type DefinitionRuns,
  type DefinitionVersions,
  type Directory,
  type DurableRuns,
  type HumanTaskApi,
  type TriggerRoutes,
} from "../engine/index.ts";
import { assignmentRoutes } from "./routes/assignment-routes.ts";
import { cacheAdminRoutes } from "./routes/cache-admin-routes.ts";
import { requireApiKey } from "./hooks/auth.ts";
import { answerClientError, refuseConnect } from "./errors/client-errors.ts";
import { installClosingGuard } from "./hooks/closing-guard.ts";
import { registerSchemas } from "./openapi/component-schemas.ts";
import { definitionRoutes } from "./routes/definition-routes.ts";
import { definitionVersionRoutes } from "./routes/definition-version-routes.ts";
import { installErrorHandling } from "./errors/error-mapping.ts";
import { answerFrameworkError } from "./errors/framework-errors.ts";
import { healthRoute } from "./routes/health-route.ts";
import { hookRoutes } from "./routes/hook-routes.ts";
import { requireHostHeader } from "./hooks/host-header.ts";
import { installIdempotency } from "./hooks/idempotency.ts";
import { instanceRoutes } from "./routes/instance-routes.ts";
import { taskEventRoutes } from "./routes/task-event-routes.ts";
import { taskHandoverRoutes } from "./routes/task-handover-routes.ts";
import { installJsonParser } from "./hooks/json-body.ts";
import { keyRoutes } from "./routes/key-routes.ts";
import { installLoadShedding } from "./hooks/load-shedding.ts";
import {
  createLogger,
  genReqId,
  OneLinePerRequest,
  REQUEST_ID_HEADER,
  withRedaction,
} from "./hooks/logging.ts";
import { registerOpenApi } from "./openapi/openapi.ts";
import { processRoutes } from "./routes/process-routes.ts";
import { readinessRoute, type ReadinessChecks } from "./routes/readiness-route.ts";
import { installRateLimit } from "./hooks/rate-limit.ts";
import type { RouteOptions } from "./routes/route-options.ts";
import { runRoutes } from "./routes/run-routes.ts";
import { storedKeyCheck, type StoredKeyCheckOptions } from "./hooks/stored-key-check.ts";
import { refuseUnstorableParams } from "./hooks/storable-params.ts";
import { taskRoutes } from "./routes/task-routes.ts";

export interface BuildServerOptions {
  engine: HumanTaskApi;
  config: TaskflowConfig;
  /** Defaults to a pino logger at config.logLevel; the API key is redacted either way. */
  logger?: Logger | undefined;
  /** The durable runs' use cases; without them the /v1/runs routes are absent. */
  runs?: DurableRuns | undefined;
  /** Versioned definitions; without them their /v1/definitions/… routes are absent. */
  definitions?: DefinitionVersions | undefined;
  /** Starts runs of published definitions (POST /v1/processes); with `triggerRoutes`, also serves /v1/hooks/…. */
  definitionRuns?: DefinitionRuns | undefined;
  /** This node's trigger route table; see triggers/trigger-routes.ts. */
  triggerRoutes?: TriggerRoutes | undefined;
  /** The definition cache's ledger; without it the /v1/admin/cache/… routes are absent. */
  cacheLedger?: CacheLedger | undefined;
  /** What GET /readyz checks, by name (e.g. the store's ping); none: always ready. */
  readiness?: ReadinessChecks | undefined;
  /**
   * Who exists (query `user`/`group`, a run's starter): the engine's own,
   * picked by the composition root (the server picks no adapter).
   */
  directory: Directory;
  /** How stored API keys' answers are cached (tests shorten it); see stored-key-check.ts. */
  apiKeyCache?: StoredKeyCheckOptions | undefined;
  /**
   * When route schemas compile: at each route's first use (the default, see
   * lazy-compilers.ts), or all at start, as Fastify does by itself (the test
   * that holds every schema compilable).
   */
  schemaCompilation?: "lazy" | "eager" | undefined;
}

/**
 * Locks, shared rate limits, idempotency keys and stored API keys: the node's
 * `coordination` (shared with the other nodes; stored keys need it), or
 * `ownCoordination`, this server's alone (each process alone, no stored keys),
 * closed with the server. Either way the composition root picks the adapter.
 */
export type ServerCoordination =
  | { coordination: Coordination; ownCoordination?: undefined }
  | { coordination?: undefined; ownCoordination: Coordination };

const RESOURCES = [
  processRoutes,
  assignmentRoutes,
  taskRoutes,
  taskEventRoutes,
  taskHandoverRoutes,
  instanceRoutes,
  definitionRoutes,
];

export function buildServer({
  engine,
  config,
  logger,
  runs,
  definitions,
  definitionRuns,
  triggerRoutes,
  cacheLedger,
  readiness = {},
  coordination,
  ownCoordination,
  directory,
  apiKeyCache,
  schemaCompilation = "lazy",
}: BuildServerOptions & ServerCoordination): FastifyInstance {
  // Also checked by loadConfig; repeated so a hand-built config cannot serve without keys.
  // With a coordination, WF_API_KEYS may be empty: stored keys are checked per request
  // (none stored: every request is a 401), and createTaskflow refuses to start without one.
  if (coordination === undefined) assertKeysOutsideDevelopment(config);
  else assertKeyLengthsOutsideDevelopment(config);
  // Before anything measures the event loop (see DefinitionVersions.prepare).
  definitions?.prepare();
  // Typed as Fastify's logger interface so the app is a plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = logger ? withRedaction(logger) : createLogger(config);
  const app = Fastify({
    loggerInstance,
    logController: new OneLinePerRequest(),
    genReqId,
    bodyLimit: config.bodyLimit,
    // Route params are ids up to MAX_ID_LENGTH (x3: percent-encoded); the default 100 would
    // turn longer ones into 404s. Longer still is a 400 from answerFrameworkError.
    routerOptions: { maxParamLength: MAX_ID_LENGTH * 3 },
    // Bad percent-encoding and over-long path ids, and what Node's parser refuses, as problem+json.
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
    // Node would answer a Host-less HTTP/1.1 request with a bare 400; host-header.ts does it as a problem.
    http: { requireHostHeader: false },
    // Bodies keep strict JSON types ("5" is not a number); query limits are coerced in pagination.ts.
    // removeAdditional off: a query parameter a route does not know (querystring schemas say
    // additionalProperties: false) is a 400 naming it, not silently dropped.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    // closing-guard.ts answers those requests as problem+json instead.
    return503OnClosing: false,
    // Each route's validators and serialisers compile at its first use (lazy-compilers.ts).
    schemaController: {
      compilersFactory: schemaCompilation === "lazy" ? lazyCompilers : eagerCompilers,
    },
  });

  refuseConnect(app.server, app.log);
  installClosingGuard(app);
  app.addHook("onRequest", requireHostHeader);
  installJsonParser(app);
  installErrorHandling(app);
  registerSchemas(app);
  // Callback style: no promise per request.
  app.addHook("onRequest", (req, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, req.id);
    done();
  });

  const shared = coordination ?? closedWith(app, ownCoordination);

  registerOpenApi(app);
  void app.register(healthRoute);
  void app.register(readinessRoute, { checks: readiness });
  void app.register(async (api) => {
    await installLoadShedding(api, config);
    api.addHook(
      "onRequest",
      requireApiKey(config.apiKeys, {
        stored: coordination && storedKeyCheck(new ApiKeys(coordination), apiKeyCache),
        open: config.apiKeys.length === 0 && isDevelopment(config),
      }),
    );
    installRateLimit(api, config, shared.limiters);
    api.addHook("preValidation", refuseUnstorableParams);
    installIdempotency(api, shared.cache, config.idempotencyMarkerTtl);
    for (const routes of RESOURCES)
      await api.register(routes, { engine, directory, definitionRuns } satisfies RouteOptions);
    if (definitions) await api.register(definitionVersionRoutes, { definitions });
    if (definitionRuns && triggerRoutes) {
      const responseTimeoutMs = config.triggerResponseTimeout;
      await api.register(hookRoutes, {
        runs: definitionRuns,
        routes: triggerRoutes,
        responseTimeoutMs,
      });
    }
    if (cacheLedger) await api.register(cacheAdminRoutes, { cacheLedger });
    // Only with the coordination the key check reads: keys made in a server-own one would work nowhere.
    if (coordination) await api.register(keyRoutes, { keys: new ApiKeys(coordination) });
    if (runs) {
      await api.register(runRoutes, {
        runs,
        exposeErrorStacks: config.exposeErrorStacks,
      });
    }
  });
  return app;
}

/** The server's own coordination (ServerCoordination), closed with it. */
function closedWith(app: FastifyInstance, own: Coordination): Coordination {
  app.addHook("onClose", () => own.close());
  return own;
}
