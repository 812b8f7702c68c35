/**
 * API-key check (docs/api.md, Headers). Keys are compared in constant time: both the
 * candidate and every configured key are hashed with SHA-256 first, so the
 * comparison always runs over 32 bytes and neither the length of a key nor the
 * position of the first differing byte shows in the timing; every configured
 * key is compared, so which key matched does not show either.
 */
import { hash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { TaskflowError } from "../domain/errors.ts";

export const API_KEY_HEADER = "x-api-key";

// One-shot hash: no Hash object per request (about half the cost of createHash().update().digest()).
const digest = (s: string): Buffer => hash("sha256", s, "buffer");

export type KeyVerifier = (candidate: string | undefined) => boolean;

export function keyVerifier(keys: readonly string[]): KeyVerifier {
  const digests = keys.map(digest);
  return (candidate) => {
    if (candidate === undefined) return false;
    const d = digest(candidate);
    let ok = false;
    for (const k of digests) ok = timingSafeEqual(d, k) || ok;
    return ok;
  };
}

/** onRequest hook for the API scope; a no-op when no keys are configured (development). */
export function requireApiKey(keys: readonly string[]) {
  const verify = keyVerifier(keys);
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    const header = req.headers[API_KEY_HEADER];
    if (keys.length === 0 || (typeof header === "string" && verify(header))) return done();
    // The reason is logged, the key is not (see logging.ts for the redaction).
    req.log.warn({ keyPresent: header !== undefined }, "rejected API key");
    done(new TaskflowError("Unauthorized", "missing or invalid X-API-Key"));
  };
}
