/**
 * Login by one-time code: POST /auth/code sends a code to a user, POST
 * /auth/verify trades a right code for a login (cookies).
 *
 * A code belongs to the browser that asked for it: the answer sets tf_code,
 * a random attempt id, and the code is kept for (user, attempt), so only that
 * browser can enter it. Asking for a code in someone else's name therefore
 * neither replaces their code nor lets anyone guess at it.
 *
 * The budgets are kept where an attacker cannot spend them for a victim: per
 * client address (client-address.ts: behind trusted proxies, X-Forwarded-For),
 * and per user *from that address* — never per user alone, which anyone could
 * use up by asking or guessing in the victim's name and lock them out:
 * - codes: 20 per address and 5 per user per address per 15 minutes;
 * - guesses: 30 per address and 10 per user per address per 15 minutes, on
 *   top of each code's own 5 guesses. A 6-digit code is found by chance with
 *   probability 10 / 10^6 per address per quarter hour.
 * An unknown user is answered like a known one (202) and sent nothing, so
 * the route does not tell who exists.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import { taskflowError } from "../domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../domain/limits.ts";
import { UnavailableError } from "../domain/unavailable.ts";
import type { Directory, OneTimeCodes, RateLimiter, RateLimiters } from "../engine/index.ts";
import type { ClientAddress } from "./client-address.ts";
import { isKnownUser } from "./console-auth.ts";
import { parseCookies, serializeCookie } from "./cookies.ts";
import type { ConsoleSessions } from "./console-sessions.ts";
import type { CodeSender } from "./code-sender.ts";
import { rolesOf, type RoleGroups } from "./roles.ts";
import type { ConsoleCookies } from "./session-cookies.ts";

export const LOGIN_PURPOSE = "console-login";
const CODE_TTL_MS = 5 * 60_000;
const CODE_ATTEMPTS = 5;
const WINDOW_MS = 15 * 60_000;
const ATTEMPT_COOKIE = "tf_code";
const ATTEMPT_ID = /^[A-Za-z0-9_-]{22}$/;

export interface CodeLoginDeps {
  tenant: string;
  codes: OneTimeCodes;
  limiters: RateLimiters;
  sender: CodeSender;
  sessions: ConsoleSessions;
  cookies: ConsoleCookies;
  directory: Directory;
  roleGroups: RoleGroups;
  clientAddress: ClientAddress;
  /** Secure cookies (outside development). */
  secure: boolean;
}

/** The code's subject: the user and the browser's attempt (a space is in no user id). */
const codeSubject = (userId: string, attempt: string) => `${userId} ${attempt}`;
/** A budget of one user from one address. */
const userAt = (userId: string, address: string) => `${address} ${userId}`;

const userId = { type: "string", minLength: 1, maxLength: MAX_ID_LENGTH, pattern: ID_PATTERN };
const codeBody = {
  type: "object",
  required: ["userId"],
  additionalProperties: false,
  properties: { userId },
} as const;
const verifyBody = {
  type: "object",
  required: ["userId", "code"],
  additionalProperties: false,
  properties: { userId, code: { type: "string", pattern: "^[0-9]{6,12}$" } },
} as const;

export function codeLoginRoutes(
  app: FastifyInstance,
  deps: CodeLoginDeps,
  done: (err?: Error) => void,
): void {
  const limit = (name: string, points: number) =>
    deps.limiters.limiter({ name, points, windowMs: WINDOW_MS, window: "sliding" });
  const codePerUserAt = limit("console-code-user-ip", 5);
  const codePerAddress = limit("console-code-ip", 20);
  const guessPerUserAt = limit("console-guess-user-ip", 10);
  const guessPerAddress = limit("console-guess-ip", 30);
  const attemptCookie = (value: string, maxAgeSeconds: number) =>
    serializeCookie(ATTEMPT_COOKIE, value, {
      path: "/console/api/auth",
      httpOnly: true,
      secure: deps.secure,
      sameSite: "Strict",
      maxAgeSeconds,
    });

  app.post<{ Body: { userId: string } }>(
    "/auth/code",
    { schema: { body: codeBody } },
    async (req, reply) => {
      const id = req.body.userId;
      const address = deps.clientAddress(req);
      await spend(reply, deps.tenant, [
        [codePerAddress, address],
        [codePerUserAt, userAt(id, address)],
      ]);
      // Set for an unknown user too: the answer must not tell who exists.
      const attempt = randomBytes(16).toString("base64url");
      void reply.header("set-cookie", attemptCookie(attempt, CODE_TTL_MS / 1000));
      if (!isKnownUser(deps.directory, id)) {
        req.log.info({ userId: id }, "console: login code asked for an unknown user; none sent");
        return reply.code(202).send({ sent: true });
      }
      const issued = await deps.codes.issue(deps.tenant, codeSubject(id, attempt), LOGIN_PURPOSE, {
        ttlMs: CODE_TTL_MS,
        maxAttempts: CODE_ATTEMPTS,
      });
      try {
        await deps.sender.send({ userId: id, code: issued.code, expiresAt: issued.expiresAt });
      } catch (e) {
        req.log.error({ err: e, userId: id }, "console: the login code could not be sent");
        throw new UnavailableError("the login code could not be sent; try again later");
      }
      return reply.code(202).send({ sent: true });
    },
  );

  app.post<{ Body: { userId: string; code: string } }>(
    "/auth/verify",
    { schema: { body: verifyBody } },
    async (req, reply) => {
      const { userId: id, code } = req.body;
      const address = deps.clientAddress(req);
      await spend(reply, deps.tenant, [
        [guessPerAddress, address],
        [guessPerUserAt, userAt(id, address)],
      ]);
      const attempt = parseCookies(req.headers.cookie).get(ATTEMPT_COOKIE);
      const outcome =
        attempt === undefined || !ATTEMPT_ID.test(attempt)
          ? "none"
          : await deps.codes.verify(deps.tenant, codeSubject(id, attempt), LOGIN_PURPOSE, code);
      if (outcome !== "ok" || !isKnownUser(deps.directory, id)) {
        req.log.info({ userId: id, outcome }, "console: login code refused");
        throw taskflowError("LoginCodeRejected", {
          detail:
            attempt === undefined
              ? "wrong or expired code (enter it in the browser that asked for it)"
              : "wrong or expired code",
        });
      }
      await guessPerUserAt.reset(deps.tenant, userAt(id, address));
      void reply.header("set-cookie", attemptCookie("", 0));
      const { login, session } = await deps.sessions.login(id);
      deps.cookies.set(reply, login);
      req.log.info({ userId: id, sessionId: session.sessionId }, "console: logged in by code");
      return {
        userId: id,
        roles: rolesOf(deps.directory, id, deps.roleGroups),
        csrfToken: login.csrf,
      };
    },
  );
  done();
}

async function spend(
  reply: FastifyReply,
  tenant: string,
  budgets: readonly (readonly [RateLimiter, string])[],
): Promise<void> {
  for (const [limiter, key] of budgets) {
    const r = await limiter.consume(tenant, key);
    if (!r.allowed) {
      void reply.header("retry-after", String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))));
      throw taskflowError("TooManyLoginAttempts");
    }
  }
}
