/**
 * Checking X-API-Key against the keys stored in the coordination backend
 * (engine/coordination/api-keys.ts), with an in-process cache in front.
 *
 * A stored key costs a round trip to the backend, so each answer — the key's
 * facts or "no such key" — is kept per SHA-256 of the presented key for
 * `cacheMs` (5 s). The price: a revoked key keeps working on each node for up
 * to `cacheMs` after the revocation, and a key created by the CLI may be
 * refused for as long if it was presented (wrongly) just before.
 *
 * Wrong keys must not turn into queries: only a key of the stored shape
 * (`tfk_` + 43 characters) is looked up at all, a wrong one is remembered as
 * such (negative cache), concurrent requests with one key share one lookup,
 * and at most `maxLookups` distinct keys are looked up at once — beyond that
 * the request is a 503 to retry, not one more query.
 *
 * Only hashes of presented keys are kept in memory, never the keys.
 */
import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { UnavailableError } from "../domain/unavailable.ts";
import {
  isStoredKeyShape,
  type ApiKeyInfo,
  type ApiKeys,
} from "../engine/coordination/api-keys.ts";

export interface StoredKeyCheckOptions {
  /** How long an answer is reused; default 5 s. */
  cacheMs?: number;
  /** Distinct keys remembered; default 10 000. */
  maxEntries?: number;
  /** Distinct keys looked up at once; default 32. */
  maxLookups?: number;
}

/** The key's facts, null when it is no live stored key; a promise only when the backend is asked. */
export type StoredKeyCheck = (candidate: string) => ApiKeyInfo | null | Promise<ApiKeyInfo | null>;

export const DEFAULT_KEY_CACHE_MS = 5000;

export function storedKeyCheck(keys: ApiKeys, options: StoredKeyCheckOptions = {}): StoredKeyCheck {
  const cacheMs = options.cacheMs ?? DEFAULT_KEY_CACHE_MS;
  const maxLookups = options.maxLookups ?? 32;
  // lru-cache values must be objects: { key: null } is a remembered miss.
  const cache = new LRUCache<string, { key: ApiKeyInfo | null }>({
    max: options.maxEntries ?? 10_000,
    ttl: cacheMs,
  });
  const inFlight = new Map<string, Promise<ApiKeyInfo | null>>();

  const lookup = async (digest: string, candidate: string): Promise<ApiKeyInfo | null> => {
    try {
      const key = await keys.verify(candidate);
      cache.set(digest, { key }, { ttl: ttlFor(key, cacheMs) });
      return key;
    } finally {
      inFlight.delete(digest);
    }
  };

  return (candidate) => {
    if (!isStoredKeyShape(candidate)) return null;
    const digest = hash("sha256", candidate, "base64url");
    const cached = cache.get(digest);
    if (cached !== undefined) return usable(cached.key);
    const pending = inFlight.get(digest);
    if (pending !== undefined) return pending;
    if (inFlight.size >= maxLookups) {
      return Promise.reject(
        new UnavailableError("too many distinct API keys are being checked at once; retry"),
      );
    }
    const p = lookup(digest, candidate);
    inFlight.set(digest, p);
    return p;
  };
}

/** A live key is not reused past its own expiry. */
function ttlFor(key: ApiKeyInfo | null, cacheMs: number): number {
  if (key?.expiresAt == null) return cacheMs;
  return Math.max(1, Math.min(cacheMs, key.expiresAt.getTime() - Date.now()));
}

function usable(key: ApiKeyInfo | null): ApiKeyInfo | null {
  return key !== null && key.expiresAt !== null && key.expiresAt.getTime() <= Date.now()
    ? null
    : key;
}
