/**
 * The secrets coordination hands out and how they are stored: every backend
 * keeps only what this file derives, never the secret itself.
 *
 * - Opaque tokens are 32 random bytes (256 bits) in base64url; stored as
 *   SHA-256. A fast hash is enough here: guessing a 256-bit secret from its
 *   hash is as hard as guessing the secret.
 * - One-time codes are short (6 digits = 10^6 values), so a plain SHA-256 of
 *   one falls to a laptop in a second if the table leaks. They are stored as
 *   HMAC-SHA-256 under a random per-code salt, which at least makes each
 *   stolen row its own search; the real protection is the short TTL and the
 *   attempt cap.
 */
import {
  createHash,
  createHmac,
  randomBytes,
  randomInt,
  randomUUID,
  timingSafeEqual,
} from "node:crypto";

export const newTokenSecret = (): string => randomBytes(32).toString("base64url");

export const newId = (): string => randomUUID();

export const sha256Hex = (text: string): string =>
  createHash("sha256").update(text, "utf8").digest("hex");

/** A code of `digits` decimal digits, uniformly random (leading zeros kept). */
export function newCode(digits: number): string {
  // randomInt's bound must stay below 2^48: 12 digits is 10^12 < 2.8 × 10^14.
  return String(randomInt(0, 10 ** digits)).padStart(digits, "0");
}

export const newSalt = (): string => randomBytes(16).toString("hex");

export const codeHash = (salt: string, code: string): string =>
  createHmac("sha256", salt).update(code, "utf8").digest("hex");

/** Compares two hex digests in constant time (unequal lengths are simply unequal). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
