/**
 * Who a Console request comes from, and the CSRF token check of the mutating
 * ones. A request is a user's when
 * - it comes from a trusted proxy carrying the trusted header (SSO): the
 *   header names the user; a matching login cookie is reused. Only GET
 *   /session (what the page asks first) issues a login and sets its cookies:
 *   any other request without them is served for the header's user alone,
 *   with no stored login, so a client that keeps no cookies (curl, a probe
 *   through the proxy) does not leave a login row per request behind. Such a
 *   request has no CSRF token, so it cannot change anything; or
 * - both login cookies are live and belong together (console-sessions.ts).
 * The trusted header from any other peer is refused outright (403): it means
 * a client is trying to name itself, or the proxy list is wrong.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../domain/limits.ts";
import type { Directory } from "../engine/index.ts";
import {
  hashCsrf,
  sameSecret,
  type ConsoleSession,
  type ConsoleSessions,
} from "./console-sessions.ts";
import { MUTATING_METHODS } from "./request-origin.ts";
import { rolesOf, type Role, type RoleGroups } from "./roles.ts";
import type { ConsoleCookies } from "./session-cookies.ts";
import type { ProxyCheck } from "./trusted-proxies.ts";

export const CSRF_HEADER = "x-csrf-token";
const ID = new RegExp(ID_PATTERN);

export interface ConsoleUser {
  session: ConsoleSession;
  roles: Role[];
}

export interface AuthDeps {
  sessions: ConsoleSessions;
  cookies: ConsoleCookies;
  directory: Directory;
  roleGroups: RoleGroups;
  /** The one tenant this Console acts in (WF_CONSOLE_TENANT). */
  tenant: string;
  /** Lower-case header name; null: SSO off. */
  trustedHeader: string | null;
  fromTrustedProxy: ProxyCheck;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by requireUser on the Console's authenticated routes. */
    consoleUser: ConsoleUser | undefined;
  }
}

export const isKnownUser = (directory: Directory, id: string): boolean =>
  id.length <= MAX_ID_LENGTH && ID.test(id) && (!directory.checksIds || directory.userExists(id));

/**
 * A trusted-header request's user without a stored login: no family to
 * revoke, and a CSRF hash no token matches, so it may read but never change.
 */
const headerOnly = (userId: string): ConsoleSession => ({
  userId,
  familyId: "",
  sessionId: "trusted-header",
  csrfHash: "",
});

/**
 * The session of the request, or null (no login, or it ended). mintLogin:
 * a trusted-header request without this user's login cookies gets a login.
 */
export async function resolveSession(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: AuthDeps,
  mintLogin = false,
): Promise<ConsoleSession | null> {
  const c = deps.cookies.read(req);
  const asserted = deps.trustedHeader === null ? undefined : req.headers[deps.trustedHeader];
  if (asserted === undefined) {
    const s = await deps.sessions.authenticate(c.session, c.refresh);
    return s !== null && isKnownUser(deps.directory, s.userId) ? s : null;
  }
  if (!deps.fromTrustedProxy(req.socket.remoteAddress)) {
    req.log.warn(
      { remote: req.socket.remoteAddress },
      "console: trusted header from an untrusted peer",
    );
    throw taskflowError("TrustedProxyRequired", { header: String(deps.trustedHeader) });
  }
  const userId = typeof asserted === "string" ? asserted.trim() : "";
  if (!isKnownUser(deps.directory, userId)) {
    throw taskflowError("ProxyUserUnknown");
  }
  const current = await deps.sessions.authenticate(c.session, c.refresh);
  if (current !== null && current.userId === userId) return current;
  if (!mintLogin) return headerOnly(userId);
  const { login, session } = await deps.sessions.login(userId);
  deps.cookies.set(reply, login);
  return session;
}

/**
 * preHandler of every route that acts for a user: 401 without a login; CSRF
 * on mutations. mintLogin: GET /session only (see the header comment).
 */
export function requireUser(deps: AuthDeps, { mintLogin = false } = {}) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await resolveSession(req, reply, deps, mintLogin);
    if (session === null) throw taskflowError("LoginRequired");
    if (MUTATING_METHODS.has(req.method)) assertCsrf(req, session.csrfHash);
    req.consoleUser = { session, roles: rolesOf(deps.directory, session.userId, deps.roleGroups) };
  };
}

/** true when both are present and equal (in constant time); null when either is missing. */
export function sameSecretOrNull(a: string | undefined, b: string | undefined): boolean | null {
  if (a === undefined || b === undefined || a === "" || b === "") return null;
  return sameSecret(a, b);
}

/**
 * The X-CSRF-Token header must be this login's token: the tf_csrf cookie's
 * value (double submit) or what GET /console/api/session answered; both are
 * the same token, checked against the hash the login keeps (synchronizer).
 */
export function assertCsrf(req: FastifyRequest, csrfHash: string): void {
  const header = req.headers[CSRF_HEADER];
  if (typeof header !== "string" || header === "") {
    throw taskflowError("CsrfTokenMissing");
  }
  if (!sameSecret(hashCsrf(header), csrfHash)) {
    throw taskflowError("CsrfTokenMismatch", {
      detail: "the X-CSRF-Token header is not this session's token",
    });
  }
}
