/**
 * What opaque tokens mean on every backend: the input checks, which stored
 * token is usable, and when cleanup may forget one. `data` is small by design
 * (a key's name and tenant scope, a session's user): 4 KiB as JSON at most.
 */
import { taskflowError } from "../../domain/errors.ts";
import type {
  IssueTokenOptions,
  TokenInfo,
  TokenListing,
} from "../../engine/coordination/opaque-tokens-port.ts";
import { checkDuration, checkKey, checkPoints, checkTenant } from "./check-input.ts";

export const MAX_TOKEN_DATA_BYTES = 4096;
/** A secret is 43 base64url characters; anything much longer is not one of ours. */
export const MAX_TOKEN_TEXT_LENGTH = 512;

export function checkIssue(tenant: string, o: IssueTokenOptions): string {
  checkTenant(tenant);
  checkKey("purpose", o.purpose);
  checkKey("subject", o.subject);
  if (o.ttlMs !== undefined) checkDuration("ttlMs", o.ttlMs);
  const data = JSON.stringify(o.data ?? {});
  if (Buffer.byteLength(data, "utf8") > MAX_TOKEN_DATA_BYTES) {
    throw taskflowError("InvalidArgument", {
      detail: `token data is larger than ${MAX_TOKEN_DATA_BYTES} bytes as JSON`,
    });
  }
  return data;
}

export function checkPresented(tenant: string, purpose: string, token: string): void {
  checkTenant(tenant);
  checkKey("purpose", purpose);
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_TEXT_LENGTH) {
    throw taskflowError("InvalidArgument", {
      detail: "token must be a non-empty string of at most 512 characters",
    });
  }
}

export type TokenData = TokenInfo["data"];

/**
 * Retired, revoked and expired tokens are kept a day (as in memory), so a
 * rotated token presented again within the day is still recognised as reuse.
 */
export const TOKEN_KEEP_MS = 24 * 3600 * 1000;
/** cleanup() in one call; more would hold the database (or Redis) for long. */
export const MAX_CLEANUP_BATCH = 10_000;

export function checkScope(tenant: string, purpose: string): void {
  checkTenant(tenant);
  checkKey("purpose", purpose);
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

export const parseData = (text: string): TokenData => JSON.parse(text) as TokenData;

/** A token's stored times (ms), whatever the backend. */
export interface TokenState {
  expiresAt: number | null;
  retiredAt: number | null;
  revokedAt: number | null;
}

export const isExpired = (t: TokenState, now: number): boolean =>
  t.expiresAt !== null && t.expiresAt <= now;

export const isLive = (t: TokenState, now: number): boolean =>
  t.retiredAt === null && t.revokedAt === null && !isExpired(t, now);

export function listingState(t: TokenState, now: number): TokenListing["state"] {
  if (t.revokedAt !== null) return "revoked";
  if (t.retiredAt !== null) return "retired";
  return isExpired(t, now) ? "expired" : "live";
}

/**
 * When cleanup may remove a token: a day after it was revoked, else after it
 * was retired, else after it expired; never for a live token without expiry.
 */
export function forgetAt(t: TokenState): number | null {
  const since = t.revokedAt ?? t.retiredAt ?? t.expiresAt;
  return since === null ? null : since + TOKEN_KEEP_MS;
}
