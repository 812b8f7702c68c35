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
 * The counters live in the coordination backend (WF_COORDINATION: the store's
 * database, Redis, or memory), as the rate limiter named "api": every node on
 * one backend and key prefix spends one budget. A server built without a
 * coordination (embedded in tests) counts in its own memory.
 *
 * A limiter that fails (not "over budget" but an error: the backend is down)
 * follows WF_RATE_LIMIT_ON_ERROR. `open` (the default) lets the request
 * through and logs a warning at most once per WARN_INTERVAL_MS: a broken
 * limiter must not turn into an outage. `closed` refuses it with 503
 * `Unavailable` and Retry-After, for deployments where an unmetered API costs
 * more than a refused one.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import type { RateLimiter, RateLimiters } from "../../engine/index.ts";
import type { RateLimit, RateLimitFailure } from "../../config/config.ts";
import { formatRateLimit } from "../../config/parse-rate-limit.ts";
import { TENANT_PATTERN } from "../../domain/limits.ts";
import { UnavailableError } from "../../domain/unavailable.ts";
import { NO_KEY_ID } from "./auth.ts";
import { DEFAULT_TENANT } from "./request-context.ts";

export interface RateLimitSettings {
  rateLimit: Readonly<RateLimit> | null;
  /** Default open. */
  rateLimitOnError?: RateLimitFailure | undefined;
}

/** The limiter's name inside the key prefix: every node's hook uses this one. */
export const API_LIMITER_NAME = "api";

const TENANT = new RegExp(TENANT_PATTERN);
/** Not a valid tenant id, so it cannot collide with one; such requests fail validation anyway. */
const INVALID_TENANT = "~invalid";
const WARN_INTERVAL_MS = 10_000;

/**
 * Adds the limiting hook to a scope (call it after the API-key hook). Does
 * nothing when the limit is off, so the default costs nothing per request.
 */
export function installRateLimit(
  scope: FastifyInstance,
  settings: RateLimitSettings,
  limiters: RateLimiters,
): void {
  const limit = settings.rateLimit;
  if (!limit) return;
  const limiter = limiters.limiter({
    name: API_LIMITER_NAME,
    points: limit.points,
    windowMs: limit.durationSeconds * 1000,
  });
  scope.addHook("onRequest", rateLimitHook(limit, limiter, settings.rateLimitOnError ?? "open"));
}

export function rateLimitHook(
  limit: Readonly<RateLimit>,
  limiter: RateLimiter,
  onError: RateLimitFailure,
) {
  const budget = formatRateLimit(limit);
  let lastWarnAt = -Infinity;

  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Unset only if the key check did not run; count such requests together, never apart.
    const keyId = req.apiKeyId ?? NO_KEY_ID;
    const tenant = tenantOf(req.headers["x-tenant-id"]);
    let result;
    try {
      // The counter lives in the tenant's namespace when it is a valid one; the key names both anyway.
      const space = tenant === INVALID_TENANT ? DEFAULT_TENANT : tenant;
      result = await limiter.consume(space, `${keyId}|${tenant}`);
    } catch (e) {
      if (onError === "closed") {
        throw new UnavailableError("the rate limiter's backend is unreachable; retry later", {
          cause: e,
        });
      }
      const now = Date.now();
      if (now - lastWarnAt >= WARN_INTERVAL_MS) {
        lastWarnAt = now;
        req.log.warn({ err: e }, "rate limiter failed; requests are let through");
      }
      return;
    }
    if (!result.allowed) {
      const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      void reply.header("retry-after", String(seconds));
      throw taskflowError("RateLimitExceeded", { budget, seconds });
    }
  };
}

function tenantOf(header: unknown): string {
  if (header === undefined) return DEFAULT_TENANT;
  return typeof header === "string" && TENANT.test(header) ? header : INVALID_TENANT;
}
