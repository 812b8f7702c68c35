/**
 * HTTP triggers (docs/definitions.md, Triggers; docs/api.md, Hooks): a
 * request to `/v1/hooks/<path>` whose method and path a published definition
 * of the tenant declares starts a run of that version, through the
 * DefinitionRuns port. The API key, X-Tenant-Id and X-Actor-Id are checked as
 * on every /v1 route; bodies are JSON or nothing, like everywhere else.
 *
 * The run's vars are `{ body, query, params }`: the JSON body (null when
 * none), the query string's parameters (a repeated one is a list) and the
 * path's `{name}` parameters, decoded. The answer is 202 with the run's ids,
 * or — when the definition has a `respond` state and the run reaches it within
 * triggerResponseTimeout — that state's status and body.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import {
  type DefinitionRuns,
  requestSegments,
  type RouteTarget,
  TRIGGER_METHODS,
  type TriggerRoutes,
} from "../../engine/index.ts";
import { findUnstorableText } from "../../domain/storable-text.ts";
import type { Vars } from "../../domain/vars.ts";
import { problem, sendProblem } from "../errors/error-mapping.ts";
import { apiErrors, jsonResponse } from "../openapi/openapi-responses.ts";
import { actorContext, type ActorHeaders } from "../hooks/request-context.ts";
import { actorHeaders } from "../openapi/schema-primitives.ts";

export interface HookRouteOptions {
  runs: DefinitionRuns;
  routes: TriggerRoutes;
  /** How long to wait for a `respond` state (ms); 0: always 202 at once. */
  responseTimeoutMs: number;
}

export const HOOKS_PREFIX = "/v1/hooks";

const startedSchema = {
  type: "object",
  required: ["instanceId", "runId", "definitionKey", "version"],
  properties: {
    instanceId: { type: "string" },
    runId: { type: "string" },
    definitionKey: { type: "string" },
    version: { type: "integer" },
  },
} as const;

const startedExample = {
  instanceId: "0193a1b2-6f00-7c22-8f10-0a1b2c3d4e5f",
  runId: "0193a1b2-7000-7c22-8f10-0a1b2c3d4e60",
  definitionKey: "order-intake",
  version: 3,
};

type HookRequest = FastifyRequest<{ Headers: ActorHeaders }>;

export function hookRoutes(app: FastifyInstance, options: HookRouteOptions, done: () => void) {
  app.route<{ Headers: ActorHeaders }>({
    method: [...TRIGGER_METHODS],
    url: `${HOOKS_PREFIX}/*`,
    // A HEAD must not start a run.
    exposeHeadRoute: false,
    schema: {
      tags: ["hooks"],
      summary: "Start a run through a definition's HTTP trigger",
      description:
        "Matches the method and the path after /v1/hooks against the triggers of the tenant's " +
        "published definitions (literal segments before `{param}` ones) and starts a run of the " +
        "matching version with vars `{ body, query, params }`. 202 with the run's ids, or the " +
        "status and body of the run's `respond` state when it is reached within the configured " +
        "wait (WF_TRIGGER_RESPONSE_TIMEOUT). No trigger for the path: 404; for the path but not " +
        "the method: 405 with Allow.",
      headers: actorHeaders,
      response: {
        202: jsonResponse("The run was started", startedSchema, startedExample),
        ...apiErrors({ body: true }, "NotFound", "MethodNotAllowed", "Conflict"),
      },
    },
    handler: (req: HookRequest, reply) => answer(req, reply, options),
  });
  done();
}

async function answer(req: HookRequest, reply: FastifyReply, options: HookRouteOptions) {
  const ctx = actorContext(req);
  const path = hookPath(req.url);
  const segments = requestSegments(path);
  if (segments === null)
    throw taskflowError("MalformedPath", { detail: "the hook path is not valid percent-encoding" });
  // The table is brought up to the routes revision first: another node's publish answers here.
  const found = await options.routes.lookup(ctx.tenantId, req.method, path, segments);
  if (found.kind === "none") {
    return sendProblem(
      reply,
      problem("NotFound", `no trigger for ${shown(req.method, path)}`, "RouteNotFound"),
    );
  }
  if (found.kind === "method") {
    void reply.header("allow", found.allow.join(", "));
    const detail = `${shown(req.method, path)} has no trigger; allowed: ${found.allow.join(", ")}`;
    return sendProblem(reply, problem("MethodNotAllowed", detail));
  }
  const vars = varsOf(req, found.params);
  const started = await options.runs.start(ctx, {
    key: found.target.key,
    version: found.target.version,
    vars,
  });
  const answered = await awaitAnswer(options, found.target, ctx.tenantId, started.runId);
  if (answered !== null) return sendAnswer(reply, answered.status, answered.body);
  return reply.code(202).send({
    instanceId: started.instanceId,
    runId: started.runId,
    definitionKey: found.target.key,
    version: started.version,
  });
}

/** The path after /v1/hooks, without the query string; "/" for none. */
function hookPath(url: string): string {
  const end = url.indexOf("?");
  const rest = (end === -1 ? url : url.slice(0, end)).slice(HOOKS_PREFIX.length);
  return rest === "" ? "/" : rest;
}

const shown = (method: string, path: string) => `${method} ${path.slice(0, 200)}`;

/** The run's vars; path parameters are checked here, as the route's own are by refuseUnstorableParams. */
function varsOf(req: FastifyRequest, params: Record<string, string>): Vars {
  const unstorable = findUnstorableText(params, "path parameter");
  if (unstorable !== null) throw taskflowError("UnstorableText", { detail: unstorable });
  return {
    body: req.body === undefined ? null : req.body,
    query: { ...(req.query as Record<string, unknown>) },
    params,
  };
}

async function awaitAnswer(
  options: HookRouteOptions,
  target: RouteTarget,
  tenantId: string,
  runId: string,
) {
  if (!target.responds || options.responseTimeoutMs === 0) return null;
  return options.runs.awaitResponse(tenantId, runId, options.responseTimeoutMs);
}

/** Sent as text: the route's response schemas are for its own answers, not the definition's. */
function sendAnswer(reply: FastifyReply, status: number, body: unknown) {
  void reply.code(status);
  if (body === undefined || status === 204 || status === 205 || status === 304) return reply.send();
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(body));
}
