/**
 * Login by one-time code: POST /auth/code sends a code to a user, POST
 * /auth/verify trades a right code for a login (cookies). Both are budgeted
 * per user and per client address, so neither one address nor many can
 * guess codes or flood a person with them:
 * - a code: 5 per user and 20 per address per 15 minutes (a person asks
 *   again after a typo or a lost message, not 5 times in a quarter hour);
 * - guesses: 10 per user and 30 per address per 15 minutes, on top of the
 *   code's own 5 guesses — at 10 guesses per 15 min a 6-digit code is found
 *   by chance once in 100,000 quarters, about 3 years of trying.
 * An unknown user is answered like a known one (202) and sent nothing, so
 * the route does not tell who exists.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TaskflowError } from "../domain/errors.ts";
import { ID_PATTERN, MAX_ID_LENGTH } from "../domain/limits.ts";
import { UnavailableError } from "../domain/unavailable.ts";
import type { OneTimeCodes } from "../engine/coordination/one-time-codes.ts";
import type { RateLimiter, RateLimiters } from "../engine/coordination/rate-limiter.ts";
import type { Directory } from "../engine/ports.ts";
import { isKnownUser, unauthorized } from "./console-auth.ts";
import type { ConsoleSessions } from "./console-sessions.ts";
import type { CodeSender } from "./code-sender.ts";
import { rolesOf, type RoleGroups } from "./roles.ts";
import type { ConsoleCookies } from "./session-cookies.ts";

export const LOGIN_PURPOSE = "console-login";
const CODE_TTL_MS = 5 * 60_000;
const CODE_ATTEMPTS = 5;
const WINDOW_MS = 15 * 60_000;

export interface CodeLoginDeps {
  tenant: string;
  codes: OneTimeCodes;
  limiters: RateLimiters;
  sender: CodeSender;
  sessions: ConsoleSessions;
  cookies: ConsoleCookies;
  directory: Directory;
  roleGroups: RoleGroups;
}

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
  const codePerUser = limit("console-code-user", 5);
  const codePerAddress = limit("console-code-ip", 20);
  const guessPerUser = limit("console-guess-user", 10);
  const guessPerAddress = limit("console-guess-ip", 30);

  app.post<{ Body: { userId: string } }>(
    "/auth/code",
    { schema: { body: codeBody } },
    async (req, reply) => {
      const id = req.body.userId;
      await spend(reply, deps.tenant, [
        [codePerAddress, address(req)],
        [codePerUser, id],
      ]);
      if (!isKnownUser(deps.directory, id)) {
        req.log.info({ userId: id }, "console: login code asked for an unknown user; none sent");
        return reply.code(202).send({ sent: true });
      }
      const issued = await deps.codes.issue(deps.tenant, id, LOGIN_PURPOSE, {
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
      await spend(reply, deps.tenant, [
        [guessPerAddress, address(req)],
        [guessPerUser, id],
      ]);
      const outcome = await deps.codes.verify(deps.tenant, id, LOGIN_PURPOSE, code);
      if (outcome !== "ok" || !isKnownUser(deps.directory, id)) {
        req.log.info({ userId: id, outcome }, "console: login code refused");
        throw unauthorized("wrong or expired code");
      }
      await guessPerUser.reset(deps.tenant, id);
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

/** The TCP peer (X-Forwarded-For is the client's to write, so it is not used). */
const address = (req: FastifyRequest) => req.socket.remoteAddress ?? "unknown";

async function spend(
  reply: FastifyReply,
  tenant: string,
  budgets: readonly (readonly [RateLimiter, string])[],
): Promise<void> {
  for (const [limiter, key] of budgets) {
    const r = await limiter.consume(tenant, key);
    if (!r.allowed) {
      void reply.header("retry-after", String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))));
      throw new TaskflowError("RateLimited", "too many login attempts; try again later");
    }
  }
}
