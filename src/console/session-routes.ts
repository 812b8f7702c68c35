/**
 * The login's lifecycle after it began: read it (GET /session), renew it
 * (POST /auth/refresh, rotating the refresh token), end it (POST /auth/logout).
 *
 * Refresh and logout run when the session may already have expired, so their
 * CSRF token is checked against the tf_csrf cookie (double submit) and, for
 * refresh, against the hash the refresh token keeps. A refresh token that was
 * rotated before is a stolen copy or a confused client: the port revokes its
 * whole family, so the session of the latest refresh stops working too, and
 * this answer clears the cookies.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { CSRF_HEADER, requireUser, sameSecretOrNull, type AuthDeps } from "./console-auth.ts";
import { hashCsrf, sameSecret } from "./console-sessions.ts";

export function sessionRoutes(
  app: FastifyInstance,
  deps: AuthDeps,
  done: (err?: Error) => void,
): void {
  // The page's first call: behind a trusted proxy, this is where a login is issued.
  app.get("/session", { preHandler: requireUser(deps, { mintLogin: true }) }, (req) => {
    const user = req.consoleUser;
    if (user === undefined) throw taskflowError("LoginRequired");
    const cookie = deps.cookies.read(req).csrf;
    // The token itself lives only in the cookie; it is handed back when it is this login's.
    const csrfToken =
      cookie !== undefined && sameSecret(hashCsrf(cookie), user.session.csrfHash) ? cookie : null;
    // The groups name the page's group inboxes; the server checks membership on every read.
    const groups = deps.directory.groupsOf(user.session.userId);
    const { userId } = user.session;
    // "open": no WF_USERS nor groups, so every login is a plain user; the pages say how
    // roles are given.
    const directory = deps.directory.checksIds ? "static" : "open";
    return { userId, roles: user.roles, groups, directory, tenant: deps.tenant, csrfToken };
  });

  app.post("/auth/refresh", async (req, reply) => {
    const c = deps.cookies.read(req);
    const csrf = doubleSubmitted(req, c.csrf);
    if (c.refresh === undefined) throw taskflowError("NoLoginToRefresh");
    const r = await deps.sessions.refresh(c.refresh, csrf, c.session);
    if (r.outcome === "csrf")
      throw taskflowError("CsrfTokenMismatch", {
        detail: "the X-CSRF-Token header is not this login's token",
      });
    if (r.outcome !== "refreshed") {
      deps.cookies.clear(reply);
      if (r.outcome === "reused") {
        req.log.warn("console: a rotated refresh token was presented again; its login is revoked");
      }
      throw taskflowError("LoginEnded");
    }
    deps.cookies.set(reply, r.login);
    return { userId: r.userId, csrfToken: r.login.csrf };
  });

  app.post("/auth/logout", async (req, reply) => {
    const c = deps.cookies.read(req);
    doubleSubmitted(req, c.csrf);
    await deps.sessions.logout(c.refresh, c.session);
    deps.cookies.clear(reply);
    return reply.code(204).send();
  });
  done();
}

/** The X-CSRF-Token header equals the tf_csrf cookie; returns it. */
function doubleSubmitted(req: FastifyRequest, cookie: string | undefined): string {
  const header = req.headers[CSRF_HEADER];
  const value = typeof header === "string" ? header : undefined;
  if (value === undefined || cookie === undefined || sameSecretOrNull(value, cookie) !== true) {
    throw taskflowError("CsrfTokenMissing");
  }
  return value;
}
