/**
 * Opaque tokens: long random secrets (≥ 256 bits) for sessions, refresh
 * tokens and API keys. Only their SHA-256 is stored. Rotation hands out the
 * next token of a family and retires the presented one; presenting a retired
 * token again (reuse: it was stolen, or the client is confused) revokes the
 * whole family.
 */

export interface IssueTokenOptions {
  /** What the token is for, e.g. "session", "refresh", "api-key"; tokens of one purpose never verify as another. */
  purpose: string;
  /** Who it belongs to (a user id, a key name). */
  subject: string;
  /** Lifetime (> 0); undefined: no expiry. */
  ttlMs?: number;
  /** Small JSON-able facts kept with the token (e.g. a key's name and tenant scope). */
  data?: Readonly<Record<string, string | number | boolean | null>>;
}

export interface TokenInfo {
  /** Stable id of this token (not the secret); safe to show and log. */
  id: string;
  familyId: string;
  purpose: string;
  subject: string;
  data: Readonly<Record<string, string | number | boolean | null>>;
  createdAt: Date;
  expiresAt: Date | null;
}

/** A token as lists show it: its facts and where it stands. */
export interface TokenListing extends TokenInfo {
  state: "live" | "expired" | "retired" | "revoked";
}

export interface IssuedToken extends TokenInfo {
  /** The secret; returned once, never stored or logged. */
  token: string;
}

export type RotateOutcome =
  | { outcome: "rotated"; next: IssuedToken }
  /** The token had been rotated or revoked before: the family is revoked now. */
  | { outcome: "reused" }
  | { outcome: "invalid" };

export interface OpaqueTokens {
  issue(tenant: string, options: IssueTokenOptions): Promise<IssuedToken>;
  /** The token's facts when it is live (not expired, revoked or rotated) and of `purpose`; else null. */
  verify(tenant: string, purpose: string, token: string): Promise<TokenInfo | null>;
  /** Revokes one token by its secret or its id; true when a live token was revoked. */
  revoke(tenant: string, purpose: string, tokenOrId: string): Promise<boolean>;
  /** Revokes every token of a family. */
  revokeFamily(tenant: string, familyId: string): Promise<number>;
  rotate(tenant: string, purpose: string, token: string, ttlMs?: number): Promise<RotateOutcome>;
  /** Every token of a purpose still kept (see cleanup), newest first (ids and facts, never secrets). */
  list(tenant: string, purpose: string): Promise<TokenListing[]>;
  /** Removes up to `maxEntries` tokens that expired or were revoked longer ago than a day. */
  cleanup(maxEntries: number): Promise<number>;
}
