/**
 * /console/api/engine/<path> → the engine's /v1/<path>, as the session's user,
 * for the roles engine-route-roles.ts gives each route. A plain user reads
 * only their own inbox and processes: `?user=` must be themselves and
 * `?group=` a group they belong to (operators may look at anyone's). The key
 * routes act on the Console's tenant's keys only (tenant-keys.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { UnavailableError } from "../domain/unavailable.ts";
import type { Directory } from "../engine/index.ts";
import { requireUser, type AuthDeps } from "./console-auth.ts";
import { roleFor } from "./engine-route-roles.ts";
import { forward, type EngineTarget, type ForwardRequest } from "./engine-forwarder.ts";
import { holds } from "./roles.ts";
import { forwardTenantKeys, isKeyRoute } from "./tenant-keys.ts";

export const ENGINE_PREFIX = "/engine/";
/** Engine path segments are ids, keys, versions and route names: nothing that needs escaping. */
const SEGMENT = /^[A-Za-z0-9._~@:-]+$/;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface EngineProxyDeps extends AuthDeps {
  engine: EngineTarget;
}

export function engineProxyRoutes(
  app: FastifyInstance,
  deps: EngineProxyDeps,
  done: (err?: Error) => void,
): void {
  // Bodies are passed through as bytes; the engine validates them (and refuses non-JSON).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
  app.route({
    method: [...METHODS],
    url: `${ENGINE_PREFIX}*`,
    preHandler: requireUser(deps),
    handler: (req, reply) => proxy(req, reply, deps),
  });
  done();
}

async function proxy(req: FastifyRequest, reply: FastifyReply, deps: EngineProxyDeps) {
  const user = req.consoleUser;
  if (user === undefined) throw taskflowError("LoginRequired");
  const { segments, query } = splitUrl(req.url);
  const role = roleFor(req.method, segments);
  if (role === undefined) {
    const route = `${req.method} ${segments.join("/").slice(0, 200)}`;
    throw taskflowError("RouteNotFound", { detail: `Console route '${route}' was not found` });
  }
  if (!holds(user.roles, role)) {
    throw taskflowError("RoleRequired", { route: `${req.method} /${segments.join("/")}`, role });
  }
  if (!holds(user.roles, "operator")) {
    assertOwnView(segments, query, user.session.userId, deps.directory);
  }
  const request: ForwardRequest = {
    method: req.method,
    pathAndQuery: segments.join("/") + (query === "" ? "" : `?${query}`),
    actorId: user.session.userId,
    requestId: req.id,
    contentType: req.headers["content-type"],
    idempotencyKey: single(req.headers["idempotency-key"]),
    body: Buffer.isBuffer(req.body) ? req.body : undefined,
  };
  const answer = isKeyRoute(segments)
    ? await forwardTenantKeys(deps.engine, segments, request)
    : await forward(deps.engine, request);
  if (answer.status === 401 && deps.engine.apiKey !== null) {
    // The browser's login is fine; the Console's own key is not (WF_CONSOLE_API_KEY).
    req.log.error("console: the engine refused the Console's API key");
    throw new UnavailableError("the engine refused the Console; see the server log");
  }
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

function splitUrl(url: string): { segments: string[]; query: string } {
  const at = url.indexOf(ENGINE_PREFIX);
  const rest = at < 0 ? "" : url.slice(at + ENGINE_PREFIX.length);
  const q = rest.indexOf("?");
  const path = q < 0 ? rest : rest.slice(0, q);
  const segments = path.split("/");
  if (segments.some((s) => !SEGMENT.test(s) || s === "." || s === "..")) {
    throw taskflowError("InvalidEnginePath");
  }
  return { segments, query: q < 0 ? "" : rest.slice(q + 1) };
}

/** A plain user's inbox and process list are their own (and their groups'). */
function assertOwnView(
  segments: readonly string[],
  query: string,
  userId: string,
  directory: Directory,
): void {
  const route = segments.join("/");
  if (route !== "tasks" && route !== "processes") return;
  const params = new URLSearchParams(query);
  for (const user of params.getAll("user")) {
    if (user !== userId)
      throw taskflowError("OperatorRequired", {
        detail: "only an operator may read another user's list",
      });
  }
  for (const group of params.getAll("group")) {
    // isMember, as the engine's own group rules: the open directory cannot tell members,
    // so there (as over REST with X-Actor-Id) anyone may read a group's tasks.
    if (route !== "tasks" || !directory.isMember(userId, group)) {
      throw taskflowError("GroupMembershipRequired", { groupId: group.slice(0, 128) });
    }
  }
}

const single = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);
