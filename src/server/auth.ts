/**
 * API-key check (docs/api.md, Headers). Keys are compared in constant time: both the
 * candidate and every configured key are hashed with SHA-256 first, so the
 * comparison always runs over 32 bytes and neither the length of a key nor the
 * position of the first differing byte shows in the timing; every configured
 * key is compared, so which key matched does not show either.
 *
 * The check names the key it accepted in `request.apiKeyId` — `key#<n>` for the
 * n-th key of WF_API_KEYS, `nokey` in development without keys — never by its
 * value: rate limits and idempotency records are kept per key under that name.
 */
import { hash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { TaskflowError } from "../domain/errors.ts";

export const API_KEY_HEADER = "x-api-key";
export const NO_KEY_ID = "nokey";

declare module "fastify" {
  interface FastifyRequest {
    /** Which accepted key the request came with (see above); set by the API-key hook. */
    apiKeyId: string;
  }
}

// One-shot hash: no Hash object per request (about half the cost of createHash().update().digest()).
const digest = (s: string): Buffer => hash("sha256", s, "buffer");

/** The candidate's key id (`key#<n>`) when it is one of the keys; undefined otherwise. */
export type KeyVerifier = (candidate: string | undefined) => string | undefined;

export function keyVerifier(keys: readonly string[]): KeyVerifier {
  const digests = keys.map(digest);
  return (candidate) => {
    if (candidate === undefined) return undefined;
    const d = digest(candidate);
    let found: number | undefined;
    digests.forEach((k, i) => {
      // No early exit: every key is compared whichever matches.
      if (timingSafeEqual(d, k)) found = i;
    });
    return found === undefined ? undefined : `key#${found + 1}`;
  };
}

/** onRequest hook for the API scope; accepts every request when no keys are configured (development). */
export function requireApiKey(keys: readonly string[]) {
  const verify = keyVerifier(keys);
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    if (keys.length === 0) {
      req.apiKeyId = NO_KEY_ID;
      return done();
    }
    const header = req.headers[API_KEY_HEADER];
    const id = typeof header === "string" ? verify(header) : undefined;
    if (id !== undefined) {
      req.apiKeyId = id;
      return done();
    }
    // The reason is logged, the key is not (see logging.ts for the redaction).
    req.log.warn({ keyPresent: header !== undefined }, "rejected API key");
    done(new TaskflowError("Unauthorized", "missing or invalid X-API-Key"));
  };
}
