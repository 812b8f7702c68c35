/**
 * Login by OpenID Connect (authorization code flow with PKCE, state and
 * nonce; openid-client): GET /auth/oidc/start sends the browser to the
 * provider, GET /auth/oidc/callback trades the code the provider sends back
 * for an ID token, and the claim WF_CONSOLE_OIDC_USER_CLAIM of that token
 * names the directory user, who gets a login made as every other mode makes
 * it (console-sessions.ts).
 *
 * The flow's secrets (PKCE verifier, state, nonce) are kept server-side in an
 * opaque token of 10 minutes, whose secret is the tf_oidc cookie: the
 * callback is accepted only in the browser that started it (no login CSRF),
 * once (the token is revoked when used). Starts are budgeted per client
 * address, since each one stores a token.
 *
 * The provider is discovered at the first start, not at boot: a Console whose
 * provider is down still starts and serves its other logins; a failed
 * discovery is a 503 and is tried again at the next start.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import * as oidc from "openid-client";
import type { TaskflowConfig } from "../config/config.ts";
import { OIDC_CALLBACK_PATH } from "../config/parse-console-oidc.ts";
import { taskflowError } from "../domain/errors.ts";
import { UnavailableError } from "../domain/unavailable.ts";
import type { Directory, OpaqueTokens, RateLimiters } from "../engine/index.ts";
import type { ClientAddress } from "./client-address.ts";
import { isKnownUser } from "./console-auth.ts";
import type { ConsoleSessions } from "./console-sessions.ts";
import { parseCookies, serializeCookie } from "./cookies.ts";
import type { ConsoleCookies } from "./session-cookies.ts";

export const OIDC_PURPOSE = "console-oidc";
const FLOW_COOKIE = "tf_oidc";
const FLOW_COOKIE_PATH = "/console/api/auth/oidc";
const FLOW_TTL_MS = 10 * 60_000;
const WINDOW_MS = 15 * 60_000;
const STARTS_PER_ADDRESS = 30;

export type OidcSettings = Pick<
  TaskflowConfig,
  | "consoleOidcIssuer"
  | "consoleOidcClientId"
  | "consoleOidcClientSecret"
  | "consoleOidcRedirectUrl"
  | "consoleOidcUserClaim"
  | "consoleOidcScopes"
>;

export interface OidcLoginDeps {
  tenant: string;
  settings: OidcSettings;
  tokens: OpaqueTokens;
  limiters: RateLimiters;
  sessions: ConsoleSessions;
  cookies: ConsoleCookies;
  directory: Directory;
  clientAddress: ClientAddress;
  /** Secure cookies (outside development). */
  secure: boolean;
}

export function oidcLoginRoutes(
  app: FastifyInstance,
  deps: OidcLoginDeps,
  done: (err?: Error) => void,
): void {
  const { settings } = deps;
  const issuer = settings.consoleOidcIssuer;
  const clientId = settings.consoleOidcClientId;
  const redirectUrl = settings.consoleOidcRedirectUrl;
  if (issuer === null || clientId === null || redirectUrl === null) {
    done(new Error("oidcLoginRoutes: the OpenID Connect settings are incomplete"));
    return;
  }
  // Where the Console's pages are, as the browser reaches them (behind a proxy too).
  const pagesUrl = redirectUrl.slice(0, -OIDC_CALLBACK_PATH.length) + "/console/";
  const discover = providerOf(issuer, clientId, settings.consoleOidcClientSecret);
  const startsPerAddress = deps.limiters.limiter({
    name: "console-oidc-start-ip",
    points: STARTS_PER_ADDRESS,
    windowMs: WINDOW_MS,
    window: "sliding",
  });
  const flowCookie = (value: string, maxAgeSeconds: number) =>
    serializeCookie(FLOW_COOKIE, value, {
      path: FLOW_COOKIE_PATH,
      httpOnly: true,
      secure: deps.secure,
      // Lax: sent on the provider's top-level redirect back to the callback.
      sameSite: "Lax",
      maxAgeSeconds,
    });

  app.get("/auth/oidc/start", async (req, reply) => {
    const r = await startsPerAddress.consume(deps.tenant, deps.clientAddress(req));
    if (!r.allowed) {
      void reply.header("retry-after", String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))));
      throw taskflowError("TooManyLoginAttempts");
    }
    const provider = await discover(req);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const flow = await deps.tokens.issue(deps.tenant, {
      purpose: OIDC_PURPOSE,
      subject: "oidc-login",
      ttlMs: FLOW_TTL_MS,
      data: { verifier, state, nonce },
    });
    const to = oidc.buildAuthorizationUrl(provider, {
      redirect_uri: redirectUrl,
      scope: settings.consoleOidcScopes.join(" "),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
    void reply.header("set-cookie", flowCookie(flow.token, FLOW_TTL_MS / 1000));
    void reply.header("cache-control", "no-store");
    return reply.redirect(to.href, 302);
  });

  // The request line is logged without its query: it carries the provider's code and state.
  app.get("/auth/oidc/callback", { logSerializers: { req: withoutQuery } }, async (req, reply) => {
    void reply.header("set-cookie", flowCookie("", 0));
    void reply.header("cache-control", "no-store");
    const failed = (reason: string, log: Record<string, unknown> = {}) => {
      req.log.info({ ...log, reason }, "console: OpenID Connect login refused");
      return reply.redirect(`${pagesUrl}?loginError=${reason}`, 303);
    };
    const secret = parseCookies(req.headers.cookie).get(FLOW_COOKIE);
    const flow =
      secret === undefined ? null : await deps.tokens.verify(deps.tenant, OIDC_PURPOSE, secret);
    if (secret === undefined || flow === null) return failed("expired");
    // One use: a replayed callback finds the flow gone.
    if (!(await deps.tokens.revoke(deps.tenant, OIDC_PURPOSE, secret))) return failed("expired");
    const { verifier, state, nonce } = flow.data;
    if (typeof verifier !== "string" || typeof state !== "string" || typeof nonce !== "string") {
      return failed("expired");
    }
    const provider = await discover(req);
    // The address the provider sent the browser to, with its answer: behind a proxy the
    // request's own URL is an inner one, so the configured callback is the base.
    const current = new URL(redirectUrl);
    current.search = new URL(req.url, "http://callback.invalid").search;
    const claim = settings.consoleOidcUserClaim;
    let userId: unknown;
    let emailVerified: unknown;
    try {
      const tokens = await oidc.authorizationCodeGrant(provider, current, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      userId = claims?.[claim];
      emailVerified = claims?.email_verified;
      // Many providers put profile claims (preferred_username, email) in UserInfo only.
      if (userId === undefined && claims !== undefined) {
        const info = await oidc.fetchUserInfo(provider, tokens.access_token, claims.sub);
        userId = info[claim];
        emailVerified = info.email_verified;
      }
    } catch (e) {
      const err = e as { name?: unknown; code?: unknown; message?: unknown; error?: unknown };
      const detail = { error: err.error ?? err.code ?? err.name, message: err.message };
      return failed("refused", { provider: detail });
    }
    // An address the provider did not verify is anyone's to type in: it names nobody.
    if (claim === "email" && emailVerified !== true) return failed("unknown-user", { claim });
    if (typeof userId !== "string" || !isKnownUser(deps.directory, userId)) {
      return failed("unknown-user", { claim });
    }
    const { login, session } = await deps.sessions.login(userId);
    // Beside the flow cookie's deletion above (Fastify appends Set-Cookie headers).
    deps.cookies.set(reply, login);
    req.log.info({ userId, sessionId: session.sessionId }, "console: logged in by OpenID Connect");
    return reply.redirect(pagesUrl, 303);
  });
  done();
}

function withoutQuery(req: FastifyRequest) {
  return {
    method: req.method,
    url: req.url.split("?")[0],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket.remotePort,
  };
}

/** The provider's metadata, discovered once; a failure is a 503 and is retried next time. */
function providerOf(issuer: string, clientId: string, clientSecret: string | null) {
  let found: Promise<oidc.Configuration> | undefined;
  const url = new URL(issuer);
  return async (req: FastifyRequest): Promise<oidc.Configuration> => {
    found ??= oidc
      .discovery(
        url,
        clientId,
        clientSecret ?? undefined,
        clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(clientSecret),
        // The config allows http only on loopback (a provider on this machine).
        url.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : undefined,
      )
      .catch((e: unknown) => {
        found = undefined;
        throw e;
      });
    try {
      return await found;
    } catch (e) {
      req.log.error(
        { err: e, issuer },
        "console: the OpenID Connect provider could not be discovered",
      );
      throw new UnavailableError("the login provider cannot be reached; try again later");
    }
  };
}
