/**
 * What the SQL and Redis one-time codes share: input checks, the issue
 * budget, making a code and hashing it.
 *
 * Why HMAC-SHA-256 keyed by a per-issue random salt, and what it does not do:
 * a 6-digit code has 10^6 values. Stored as plain SHA-256, one table of 10^6
 * hashes (a second to build) reads every code in a leaked table at once.
 * With a 128-bit salt per issue no table can be built ahead and each row costs
 * its own 10^6 HMACs; the message also names tenant and slot, so a hash copied
 * from a row whose code is known onto another subject's row matches nothing.
 * One row alone still falls to ~10^6 HMACs (about a second): against someone
 * holding the table, the defence is the short life (10 min by default) and
 * that a used code is deleted, not the hash. A secret kept outside the store
 * (a pepper) would close that, and needs configuration this port lacks.
 */
import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { TaskflowError, validation } from "../../domain/errors.ts";
import type { IssueCodeOptions } from "../../engine/coordination/one-time-codes.ts";
import type { RateLimiter, RateLimiters } from "../../engine/coordination/rate-limiter.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "./check-input.ts";

export const DEFAULT_CODE_TTL_MS = 10 * 60 * 1000;
export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_DIGITS = 6;
/** 12 digits (10^12) stay under randomInt's 2^48 range. */
export const MIN_DIGITS = 6;
export const MAX_DIGITS = 12;
/** More guesses than this defeats the point of a short code. */
export const MAX_ATTEMPTS_CAP = 100;
/** Guesses longer than any code are refused before hashing. */
const MAX_GUESS_LENGTH = 64;

/** Per subject: 5 codes per 15 min is a person retrying, not someone flooding an inbox. */
export const ISSUE_BUDGET = { name: "otp-issue", points: 5, windowMs: 15 * 60 * 1000 } as const;

export interface CodeSettings {
  ttlMs: number;
  maxAttempts: number;
  digits: number;
}

export function checkIssue(
  tenant: string,
  subject: string,
  purpose: string,
  options: IssueCodeOptions | undefined,
): CodeSettings {
  checkNames(tenant, subject, purpose);
  const ttlMs = options?.ttlMs ?? DEFAULT_CODE_TTL_MS;
  const maxAttempts = options?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const digits = options?.digits ?? DEFAULT_DIGITS;
  checkDuration("ttlMs", ttlMs);
  checkPoints("maxAttempts", maxAttempts);
  if (maxAttempts > MAX_ATTEMPTS_CAP) {
    throw validation(`maxAttempts must be at most ${MAX_ATTEMPTS_CAP}; got ${maxAttempts}`);
  }
  if (!Number.isInteger(digits) || digits < MIN_DIGITS || digits > MAX_DIGITS) {
    throw validation(`digits must be a whole number from ${MIN_DIGITS} to ${MAX_DIGITS}`);
  }
  return { ttlMs, maxAttempts, digits };
}

export function checkGuess(tenant: string, subject: string, purpose: string, code: string): void {
  checkNames(tenant, subject, purpose);
  if (typeof code !== "string" || code.length === 0 || code.length > MAX_GUESS_LENGTH) {
    throw validation(`code must be a string of 1 to ${MAX_GUESS_LENGTH} characters`);
  }
}

function checkNames(tenant: string, subject: string, purpose: string): void {
  checkTenant(tenant);
  checkKey("subject", subject);
  checkKey("purpose", purpose);
}

/** One limiter per backend instance; the key is the subject, whatever the purpose. */
export function issueBudget(limiters: RateLimiters): RateLimiter {
  return limiters.limiter(ISSUE_BUDGET);
}

export async function spendIssueBudget(
  budget: RateLimiter,
  tenant: string,
  subject: string,
): Promise<void> {
  const taken = await budget.consume(tenant, subject);
  if (!taken.allowed) {
    const seconds = Math.ceil(taken.retryAfterMs / 1000);
    throw new TaskflowError(
      "RateLimited",
      `too many codes issued for this subject; retry in ${seconds} s`,
    );
  }
}

/** Uniform over 0 … 10^digits − 1 (randomInt rejects rather than biases), zero-padded. */
export function newCode(digits: number): string {
  return randomInt(0, 10 ** digits)
    .toString()
    .padStart(digits, "0");
}

export const newSalt = (): string => randomBytes(16).toString("hex");

/**
 * Where a (prefix, subject, purpose) lives. JSON of the three keeps
 * ("a:b", "c") and ("a", "b:c") apart, and the hash keeps keys short.
 */
export function codeSlot(keyPrefix: string, subject: string, purpose: string): string {
  return createHash("sha256")
    .update(JSON.stringify([keyPrefix, subject, purpose]))
    .digest("hex");
}

export function hashCode(salt: string, tenant: string, slot: string, code: string): string {
  return createHmac("sha256", Buffer.from(salt, "hex"))
    .update(`${tenant}\n${slot}\n${code}`)
    .digest("hex");
}

/** Constant time, so how long a wrong guess takes says nothing of how close it was. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
