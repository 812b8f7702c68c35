/**
 * What opaque tokens mean on every backend: input checks and the shape of a
 * token's stored facts. `data` is small by design (a key's name and tenant
 * scope, a session's user): 4 KiB as JSON at most.
 */
import { validation } from "../../domain/errors.ts";
import type { IssueTokenOptions } from "../../engine/coordination/opaque-tokens.ts";
import { checkDuration, checkKey, checkTenant } from "./check-input.ts";

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
    throw validation(`token data is larger than ${MAX_TOKEN_DATA_BYTES} bytes as JSON`);
  }
  return data;
}

export function checkPresented(tenant: string, purpose: string, token: string): void {
  checkTenant(tenant);
  checkKey("purpose", purpose);
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_TEXT_LENGTH) {
    throw validation("token must be a non-empty string of at most 512 characters");
  }
}
