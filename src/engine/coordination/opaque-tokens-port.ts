/**
 * The opaque tokens port: long random secrets (≥ 256 bits) for sessions,
 * refresh tokens and API keys. One of the five coordination primitives
 * (coordination-port.ts).
 *
 * Glossary
 * - token: the secret handed to a client once; only its SHA-256 is stored, so
 *   the store can verify it but never give it back.
 * - id: a token's stable public name (not the secret), safe to list and log.
 * - purpose: what a token is for ("session", "refresh", "api-key"); a token
 *   of one purpose never verifies as another.
 * - family: the chain of tokens one login rotated through.
 * - rotation: hands out the next token of the family and retires the one
 *   presented.
 * - reuse: presenting a retired token again (it was stolen, or the client is
 *   confused); it revokes the whole family.
 * - live: not expired, revoked or retired — the only state that verifies.
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
