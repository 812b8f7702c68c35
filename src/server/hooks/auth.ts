/**
 * API-key check (docs/api.md, Headers). Keys are compared in constant time: both the
 * candidate and every configured key are hashed with SHA-256 first, so the
 * comparison always runs over 32 bytes and neither the length of a key nor the
 * position of the first differing byte shows in the timing; every configured
 * key is compared, so which key matched does not show either.
 *
 * Keys stored in the coordination backend (`taskflow keys create`) are
 * checked second, only when the key is none of WF_API_KEYS: the configured
 * keys stay free of I/O (stored-key-check.ts says what the stored ones cost).
 * A stored key scoped to a tenant is refused (403) for any other X-Tenant-Id.
 *
 * Development without WF_API_KEYS is open: a request without a key is
 * accepted. A key that is sent is checked all the same, so a wrong one is a
 * 401 there too: a client that sends a key relies on it (a stored key's
 * tenant scope among others), and a test against a development node would
 * otherwise pass with any key.
 *
 * The check names the key it accepted in `request.apiKeyId` — `key#<n>` for the
 * n-th key of WF_API_KEYS, `key:<id>` for a stored key, `nokey` in development
 * for a request without a key — never by its value: rate limits and
 * idempotency records are kept per key under that name.
 *
 * Refusals are logged through a RefusalLog (refusal-log.ts): a flood of wrong
 * keys writes a bounded number of lines, not one or more per request.
 */
import { hash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { taskflowError } from "../../domain/errors.ts";
import type { ApiKeyInfo } from "../../engine/index.ts";
import { DEFAULT_TENANT } from "./request-context.ts";
import { RefusalLog } from "./refusal-log.ts";
import { TooManyKeyLookupsError, type StoredKeyCheck } from "./stored-key-check.ts";

export const API_KEY_HEADER = "x-api-key";
export const NO_KEY_ID = "nokey";

declare module "fastify" {
  interface FastifyRequest {
    /** Which accepted key the request came with (see above); set by the API-key hook. */
    apiKeyId: string;
    /**
     * The one tenant the accepted key may act for; null for a key of every
     * tenant (WF_API_KEYS, an unscoped stored key, development without keys).
     * Deployment-wide routes (the cache admin routes) refuse a scoped key.
     */
    apiKeyTenant: string | null;
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

export interface ApiKeyOptions {
  /** Stored keys, checked after the configured ones; none: only WF_API_KEYS. */
  stored?: StoredKeyCheck | undefined;
  /**
   * Accept a request without a key (development without WF_API_KEYS); a key
   * that is sent is checked all the same. Default: when there are no
   * configured keys and no stored ones to check.
   */
  open?: boolean | undefined;
  /** Where refusals are logged; default: a RefusalLog of its own. */
  refusals?: RefusalLog | undefined;
}

type Done = (err?: Error) => void;

/** onRequest hook for the API scope. */
export function requireApiKey(keys: readonly string[], options: ApiKeyOptions = {}) {
  const verify = keyVerifier(keys);
  const { stored } = options;
  const open = options.open ?? (keys.length === 0 && stored === undefined);
  const refusals = options.refusals ?? new RefusalLog();
  const refuse = (req: FastifyRequest, done: Done): void => {
    // The reason is logged, the key is not (see logging.ts for the redaction).
    const keyPresent = req.headers[API_KEY_HEADER] !== undefined;
    if (refusals.admit(req)) req.log.warn({ keyPresent }, "rejected API key");
    done(taskflowError("ApiKeyRejected"));
  };
  const acceptStored = (req: FastifyRequest, key: ApiKeyInfo | null, done: Done): void => {
    if (key === null) return refuse(req, done);
    acceptKey(req, key, refusals, done);
  };
  const failed = (req: FastifyRequest, e: unknown, done: Done): void => {
    // Over the unknown keys' budget: as floodable as a wrong key. The error handler logs it, or not.
    if (e instanceof TooManyKeyLookupsError) refusals.admit(req);
    done(e as Error);
  };
  return (req: FastifyRequest, _reply: FastifyReply, done: Done): void => {
    req.apiKeyTenant = null;
    const header = req.headers[API_KEY_HEADER];
    if (open && header === undefined) {
      req.apiKeyId = NO_KEY_ID;
      return done();
    }
    const candidate = typeof header === "string" ? header : undefined;
    const id = verify(candidate);
    if (id !== undefined) {
      req.apiKeyId = id;
      return done();
    }
    if (candidate === undefined || stored === undefined) return refuse(req, done);
    const found = stored(candidate);
    if (found instanceof Promise) {
      found.then(
        (key) => acceptStored(req, key, done),
        (e: unknown) => failed(req, e, done),
      );
    } else acceptStored(req, found, done);
  };
}

function acceptKey(req: FastifyRequest, key: ApiKeyInfo, refusals: RefusalLog, done: Done): void {
  const keyId = `key:${key.id}`;
  if (key.tenant !== null && tenantOf(req) !== key.tenant) {
    if (refusals.admit(req)) req.log.warn({ keyId }, "API key used outside its tenant");
    return done(taskflowError("TenantNotPermitted", { tenant: key.tenant }));
  }
  req.apiKeyId = keyId;
  req.apiKeyTenant = key.tenant;
  done();
}

function tenantOf(req: FastifyRequest): unknown {
  return req.headers["x-tenant-id"] ?? DEFAULT_TENANT;
}
