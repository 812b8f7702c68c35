/**
 * Request rate limiting for the /v1 scope (WF_RATE_LIMIT; off by default).
 *
 * The budget belongs to one API key (request.apiKeyId, set by the key check) and one tenant (X-Tenant-Id, default
 * `default`), so a busy tenant cannot starve another behind the same backend.
 * X-Actor-Id does not take part: the backend (BFF) sets it per end user, so
 * counting it would multiply the budget by the number of users; per-user limits
 * belong in the backend, which knows its sessions. The key is named by its id
 * (`key#1`: its position in WF_API_KEYS), never by its value or a hash of it,
 * in limiter keys and in logs.
 *
 * The hook runs after the API-key check, so a caller without a valid key is
 * refused (401) without spending anyone's budget. Over the budget the request
 * is a 429 `RateLimited` problem with Retry-After (whole seconds).
 *
 * The limiter is in memory, per process: with N nodes the cluster admits up to
 * N times the budget (the configuration has no shared store such as Redis).
 * A limiter that fails (not "over budget" but an error) lets the request
 * through and logs a warning at most once per WARN_INTERVAL_MS: a broken
 * limiter must not turn into an outage.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimit } from "../config/config.ts";
import { formatRateLimit } from "../config/parse-rate-limit.ts";
import { TaskflowError } from "../domain/errors.ts";
import { TENANT_PATTERN } from "../domain/limits.ts";
import { NO_KEY_ID } from "./auth.ts";
import { DEFAULT_TENANT } from "./request-context.ts";

/** What the hook needs of a limiter; rate-limiter-flexible's limiters have it. */
export interface Limiter {
  /** Resolves while under budget; rejects with a RateLimiterRes when over it, an Error when broken. */
  consume(key: string): Promise<unknown>;
}

export interface RateLimitSettings {
  rateLimit: Readonly<RateLimit> | null;
}

const TENANT = new RegExp(TENANT_PATTERN);
/** Not a valid tenant id, so it cannot collide with one; such requests fail validation anyway. */
const INVALID_TENANT = "~invalid";
const WARN_INTERVAL_MS = 10_000;

export function memoryLimiter(limit: Readonly<RateLimit>): Limiter {
  return new RateLimiterMemory({ points: limit.points, duration: limit.durationSeconds });
}

/**
 * Adds the limiting hook to a scope (call it after the API-key hook). Does
 * nothing when the limit is off, so the default costs nothing per request.
 */
export function installRateLimit(
  scope: FastifyInstance,
  settings: RateLimitSettings,
  limiter?: Limiter,
): void {
  const limit = settings.rateLimit;
  if (!limit) return;
  scope.addHook("onRequest", rateLimitHook(limit, limiter ?? memoryLimiter(limit)));
}

export function rateLimitHook(limit: Readonly<RateLimit>, limiter: Limiter) {
  const budget = formatRateLimit(limit);
  let lastWarnAt = -Infinity;

  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Unset only if the key check did not run; count such requests together, never apart.
    const keyId = req.apiKeyId ?? NO_KEY_ID;
    try {
      await limiter.consume(`${keyId}|${tenantOf(req.headers["x-tenant-id"])}`);
    } catch (e) {
      if (e instanceof RateLimiterRes) {
        const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
        void reply.header("retry-after", String(seconds));
        throw new TaskflowError(
          "RateLimited",
          `rate limit of ${budget} per API key and tenant exceeded; retry after ${seconds} s`,
        );
      }
      const now = Date.now();
      if (now - lastWarnAt >= WARN_INTERVAL_MS) {
        lastWarnAt = now;
        req.log.warn({ err: e }, "rate limiter failed; requests are let through");
      }
    }
  };
}

function tenantOf(header: unknown): string {
  if (header === undefined) return DEFAULT_TENANT;
  return typeof header === "string" && TENANT.test(header) ? header : INVALID_TENANT;
}
