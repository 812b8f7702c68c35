/**
 * What the SQL and Redis opaque tokens share: input checks, making a secret
 * and its hash, and the rules for which stored token is usable.
 *
 * The secret is 32 random bytes (256 bits), so a plain SHA-256 is enough to
 * store it: unlike a short code or a password, nothing about it can be
 * guessed, and a leaked hash cannot be turned back into the token.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { validation } from "../../domain/errors.ts";
import type { IssueTokenOptions, TokenInfo } from "../../engine/coordination/opaque-tokens.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "./check-input.ts";

export type TokenData = TokenInfo["data"];

/** "Small facts": 8 KiB of JSON is far more than a key name and a scope. */
export const MAX_TOKEN_DATA_BYTES = 8 * 1024;
/** Revoked or expired tokens stay this long, so a late presenter still meets "revoked", not "unknown". */
export const TOKEN_KEEP_MS = 24 * 3600 * 1000;
/** cleanup() in one call; more would hold the database (or Redis) for long. */
export const MAX_CLEANUP_BATCH = 10_000;
/** Presented secrets longer than this are nobody's token (ours are 43 characters). */
const MAX_SECRET_LENGTH = 1024;

export interface TokenRequest {
  purpose: string;
  subject: string;
  ttlMs: number | undefined;
  data: string;
}

export function checkIssueToken(tenant: string, options: IssueTokenOptions): TokenRequest {
  checkTenant(tenant);
  if (typeof options !== "object" || options === null) throw validation("options are required");
  checkKey("purpose", options.purpose);
  checkKey("subject", options.subject);
  if (options.ttlMs !== undefined) checkDuration("ttlMs", options.ttlMs);
  return {
    purpose: options.purpose,
    subject: options.subject,
    ttlMs: options.ttlMs,
    data: serialiseData(options.data ?? {}),
  };
}

function serialiseData(data: unknown): string {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw validation("data must be an object of strings, numbers, booleans and nulls");
  }
  for (const [key, value] of Object.entries(data)) {
    const plain =
      value === null ||
      typeof value === "string" ||
      typeof value === "boolean" ||
      (typeof value === "number" && Number.isFinite(value));
    if (!plain)
      throw validation(`data.${key.slice(0, 80)} must be a string, finite number, boolean or null`);
  }
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text) > MAX_TOKEN_DATA_BYTES) {
    throw validation(`data is over ${MAX_TOKEN_DATA_BYTES} bytes as JSON`);
  }
  return text;
}

export function parseData(text: string): TokenData {
  return JSON.parse(text) as TokenData;
}

export function checkScope(tenant: string, purpose: string): void {
  checkTenant(tenant);
  checkKey("purpose", purpose);
}

/** A presented secret or id: a string, not empty, not absurdly long. */
export function checkPresented(tenant: string, purpose: string, what: string, value: string): void {
  checkScope(tenant, purpose);
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_SECRET_LENGTH) {
    throw validation(`${what} must be a string of 1 to ${MAX_SECRET_LENGTH} characters`);
  }
}

export function checkFamily(tenant: string, familyId: string): void {
  checkTenant(tenant);
  checkKey("familyId", familyId);
}

export function checkTtl(ttlMs: number | undefined): void {
  if (ttlMs !== undefined) checkDuration("ttlMs", ttlMs);
}

export function checkCleanup(maxEntries: number): number {
  checkPoints("maxEntries", maxEntries);
  return Math.min(maxEntries, MAX_CLEANUP_BATCH);
}

export const newSecret = (): string => randomBytes(32).toString("base64url");
export const newTokenId = (): string => randomUUID();
export const hashSecret = (token: string): string =>
  createHash("sha256").update(token, "utf8").digest("hex");

/** A token's stored state, whatever the backend. */
export interface TokenState {
  expiresAt: number | null;
  retiredAt: number | null;
  revokedAt: number | null;
}

export const isExpired = (t: TokenState, now: number): boolean =>
  t.expiresAt !== null && t.expiresAt <= now;

export const isLive = (t: TokenState, now: number): boolean =>
  t.retiredAt === null && t.revokedAt === null && !isExpired(t, now);
