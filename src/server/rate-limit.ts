/**
 * Request rate limiting for the /v1 scope (WF_RATE_LIMIT; off by default).
 *
 * The budget belongs to one API key and one tenant (X-Tenant-Id, default
 * `default`), so a busy tenant cannot starve another behind the same backend.
 * X-Actor-Id does not take part: the backend (BFF) sets it per end user, so
 * counting it would multiply the budget by the number of users; per-user limits
 * belong in the backend, which knows its sessions. The key is named by its
 * position in WF_API_KEYS (`key#1`), never by its value or a hash of it, in
 * limiter keys and in logs.
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
import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimit } from "../config/config.ts";
import { formatRateLimit } from "../config/parse-rate-limit.ts";
import { TaskflowError } from "../domain/errors.ts";
import { TENANT_PATTERN } from "../domain/limits.ts";
import { API_KEY_HEADER } from "./auth.ts";
import { DEFAULT_TENANT } from "./request-context.ts";

/** What the hook needs of a limiter; rate-limiter-flexible's limiters have it. */
export interface Limiter {
  /** Resolves while under budget; rejects with a RateLimiterRes when over it, an Error when broken. */
  consume(key: string): Promise<unknown>;
}

export interface RateLimitSettings {
  rateLimit: Readonly<RateLimit> | null;
  apiKeys: readonly string[];
}

const TENANT = new RegExp(TENANT_PATTERN);
/** Not a valid tenant id, so it cannot collide with one; such requests fail validation anyway. */
const INVALID_TENANT = "~invalid";
const NO_KEY = "nokey";
const WARN_INTERVAL_MS = 10_000;

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

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
  scope.addHook(
    "onRequest",
    rateLimitHook(limit, settings.apiKeys, limiter ?? memoryLimiter(limit)),
  );
}

export function rateLimitHook(
  limit: Readonly<RateLimit>,
  apiKeys: readonly string[],
  limiter: Limiter,
) {
  const keyIdOf = keyIdentity(apiKeys);
  const budget = formatRateLimit(limit);
  let lastWarnAt = -Infinity;

  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const keyId = keyIdOf(req.headers[API_KEY_HEADER]);
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

/** API key header → "key#<1-based position in WF_API_KEYS>" (or "nokey" in development). */
function keyIdentity(apiKeys: readonly string[]): (header: unknown) => string {
  const byDigest = new Map(apiKeys.map((k, i) => [digest(k), `key#${i + 1}`] as const));
  return (header) => {
    if (typeof header !== "string" || byDigest.size === 0) return NO_KEY;
    // Only reached after the key check, so a miss means no keys are configured.
    return byDigest.get(digest(header)) ?? NO_KEY;
  };
}

function tenantOf(header: unknown): string {
  if (header === undefined) return DEFAULT_TENANT;
  return typeof header === "string" && TENANT.test(header) ? header : INVALID_TENANT;
}
