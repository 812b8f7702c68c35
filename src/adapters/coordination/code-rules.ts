/**
 * What one-time codes mean on every backend: defaults, bounds, and the
 * per-subject budget for issuing (so nobody can mail-bomb a person or farm
 * fresh attempt caps by asking for code after code).
 */
import { taskflowError } from "../../domain/errors.ts";
import type { IssueCodeOptions } from "../../engine/coordination/one-time-codes-port.ts";
import type { RateLimiters } from "../../engine/coordination/rate-limiter-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "./check-input.ts";
import { sha256Hex } from "./secrets.ts";

export const DEFAULT_CODE_TTL_MS = 10 * 60_000;
export const DEFAULT_CODE_ATTEMPTS = 5;
export const DEFAULT_CODE_DIGITS = 6;
/** Codes a subject may be sent per purpose: 5 per 15 minutes. */
export const CODE_ISSUE_BUDGET = { points: 5, windowMs: 15 * 60_000 } as const;

export function checkCodeRequest(tenant: string, subject: string, purpose: string): void {
  checkTenant(tenant);
  checkKey("subject", subject);
  checkKey("purpose", purpose);
}

export function codeSettings(o: IssueCodeOptions): Required<IssueCodeOptions> {
  const s = {
    ttlMs: o.ttlMs ?? DEFAULT_CODE_TTL_MS,
    maxAttempts: o.maxAttempts ?? DEFAULT_CODE_ATTEMPTS,
    digits: o.digits ?? DEFAULT_CODE_DIGITS,
  };
  checkDuration("ttlMs", s.ttlMs);
  checkPoints("maxAttempts", s.maxAttempts);
  if (s.maxAttempts > 100)
    throw taskflowError("InvalidArgument", { detail: "maxAttempts must be at most 100" });
  if (!Number.isInteger(s.digits) || s.digits < 6 || s.digits > 12) {
    throw taskflowError("InvalidArgument", {
      detail: `digits must be a whole number from 6 to 12; got ${String(s.digits)}`,
    });
  }
  return s;
}

export function codeIssueLimiter(limiters: RateLimiters) {
  const limiter = limiters.limiter({ name: "one-time-code-issue", ...CODE_ISSUE_BUDGET });
  return {
    async take(tenant: string, subject: string, purpose: string): Promise<void> {
      // Hashed: subject and purpose may each be 512 characters, a limiter key at most 512.
      const r = await limiter.consume(tenant, sha256Hex(`${purpose}\u0000${subject}`));
      if (!r.allowed) {
        const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
        throw taskflowError("TooManyCodes", { seconds });
      }
    },
  };
}
