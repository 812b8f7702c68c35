/**
 * The Console's server side, a BFF: the browser talks to /console/api with a
 * session cookie, and the Console calls the engine with the API key and the
 * session's user. The browser never holds the key (docs/console.md).
 *
 * Register with the prefix /console beside the engine's routes:
 *   app.register(consolePlugin, { prefix: CONSOLE_PREFIX, ...deps })
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isDevelopment, type TaskflowConfig } from "../config/config.ts";
import { taskflowError } from "../domain/errors.ts";
import type { Coordination, Directory } from "../engine/index.ts";
import type { AuthDeps } from "./console-auth.ts";
import { ConsoleSessions } from "./console-sessions.ts";
import { codeLoginRoutes } from "./code-login-routes.ts";
import { LogCodeSender, type CodeSender } from "./code-sender.ts";
import { clientAddress } from "./client-address.ts";
import { assertCanLogIn } from "./console-start.ts";
import { loginMethodsRoute } from "./login-methods-route.ts";
import { oidcLoginRoutes } from "./oidc-login-routes.ts";
import { consolePages, consolePagesDir, pageFallback } from "./console-pages.ts";
import { engineProxyRoutes } from "./engine-proxy-routes.ts";
import { liveEventsRoutes } from "./live-events-routes.ts";
import type { EngineTarget } from "./engine-forwarder.ts";
import { originRefusal } from "./request-origin.ts";
import { setSecurityHeaders } from "./security-headers.ts";
import { sessionRoutes } from "./session-routes.ts";
import { consoleCookies } from "./session-cookies.ts";
import { trustedProxies } from "./trusted-proxies.ts";

export const CONSOLE_PREFIX = "/console";
/** How often a live page's data is compared (live-events-routes.ts): its delay, at most. */
const LIVE_POLL_MS = 1000;

export interface ConsoleDeps {
  config: TaskflowConfig;
  coordination: Coordination;
  directory: Directory;
  engine: EngineTarget;
  /** Delivers login codes; none: the log in development, no code login outside it (see console-start.ts). */
  codeSender?: CodeSender | undefined;
}

export async function consolePlugin(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { config, coordination, directory } = deps;
  const methods = assertCanLogIn(config, deps.codeSender);
  const fromTrustedProxy = trustedProxies(config.consoleTrustedProxies);
  const sessions = new ConsoleSessions(coordination.tokens, config.consoleTenant, {
    sessionTtlMs: config.consoleSessionTtl,
    refreshTtlMs: config.consoleRefreshTtl,
  });
  const auth: AuthDeps = {
    sessions,
    cookies: consoleCookies(!isDevelopment(config)),
    directory,
    roleGroups: {
      operatorGroups: config.consoleOperatorGroups,
      adminGroups: config.consoleAdminGroups,
    },
    tenant: config.consoleTenant,
    trustedHeader: config.consoleTrustedHeader,
    fromTrustedProxy,
  };
  const address = clientAddress(fromTrustedProxy);

  // First, so it sees every route of the plugin: the Console's routes are its pages' own API
  // (a session cookie and an Origin check, never X-API-Key), not the engine's REST contract,
  // so /openapi.json leaves them out rather than list them as x-api-key routes (docs/console.md).
  app.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // Declared up front so every request object keeps one shape (V8 hidden classes).
  app.decorateRequest("consoleUser", undefined);
  app.addHook("onRequest", setSecurityHeaders);
  // The error handler logs the refusal (at info) and answers it as problem+json.
  app.addHook("onRequest", (req, _reply, done) => {
    done(originRefusal(req, config.consoleOrigins) ?? undefined);
  });
  const pages = consolePagesDir(config.consoleStaticDir);
  if (pages !== null) await consolePages(app, pages);
  else
    app.log.warn("console: the pages are not built (npm run build); serving the Console API only");
  app.setNotFoundHandler((req: FastifyRequest, reply: FastifyReply) => {
    if (pages !== null) {
      const page = pageFallback(req, reply);
      if (page !== null) return page;
    }
    const route = `${req.method} ${(req.url.split("?")[0] ?? "").slice(0, 200)}`;
    throw taskflowError("RouteNotFound", { detail: `Console route '${route}' was not found` });
  });

  await app.register(
    async (api) => {
      await api.register(loginMethodsRoute, { methods });
      if (methods.code !== "off") {
        const sender = deps.codeSender ?? new LogCodeSender(app.log, config.nodeEnv);
        await api.register(codeLoginRoutes, {
          tenant: config.consoleTenant,
          codes: coordination.codes,
          limiters: coordination.limiters,
          sender,
          sessions,
          cookies: auth.cookies,
          directory,
          roleGroups: auth.roleGroups,
          clientAddress: address,
          secure: !isDevelopment(config),
        });
      }
      if (methods.oidc) {
        await api.register(oidcLoginRoutes, {
          tenant: config.consoleTenant,
          settings: config,
          tokens: coordination.tokens,
          limiters: coordination.limiters,
          sessions,
          cookies: auth.cookies,
          directory,
          clientAddress: address,
          secure: !isDevelopment(config),
        });
      }
      await api.register(sessionRoutes, auth);
      await api.register(engineProxyRoutes, { ...auth, engine: deps.engine });
      await api.register(liveEventsRoutes, {
        ...auth,
        engine: deps.engine,
        pollMs: LIVE_POLL_MS,
      });
    },
    { prefix: "/api" },
  );
}
