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
 * and at most `maxLookups` distinct unknown keys are looked up at once —
 * beyond that the request is a 503 to retry, not one more query.
 *
 * A wrong key must never cost a right one its answer, so keys this node has
 * accepted (known keys) are kept apart from everything else:
 * - in a cache of their own, which no number of wrong keys can evict (the
 *   misses have theirs); a known key is remembered after its answer went
 *   stale, so its next check is still a known key's;
 * - a known key's lookup is never counted against `maxLookups` (a flood of
 *   unknown keys cannot make it a 503), and there is at most one per key, so
 *   known keys' lookups are bounded by how many keys were ever accepted;
 * - a known key in use is looked up again in the background once its answer
 *   is half of `cacheMs` old, so a key used steadily is answered from memory
 *   and never waits for the backend, while no answer is older than `cacheMs`.
 * A key that this node has not accepted yet (a new key, or a node just
 * started) is an unknown key until its first lookup answers: under a flood it
 * may get a 503 to retry, once.
 *
 * Only hashes of presented keys are kept in memory, never the keys.
 */
import { hash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { UnavailableError } from "../../domain/unavailable.ts";
import { type ApiKeyInfo, type ApiKeys, isStoredKeyShape } from "../../engine/index.ts";

export interface StoredKeyCheckOptions {
  /** How long an answer is reused; default 5 s. */
  cacheMs?: number;
  /** Distinct wrong keys remembered; default 10 000. */
  maxEntries?: number;
  /** Distinct accepted keys remembered; default 10 000. */
  maxKnown?: number;
  /** Distinct unknown keys looked up at once; default 32. */
  maxLookups?: number;
}

/** The key's facts, null when it is no live stored key; a promise only when the backend is asked. */
export type StoredKeyCheck = (candidate: string) => ApiKeyInfo | null | Promise<ApiKeyInfo | null>;

// One home for the server and `taskflow keys`, which says how long a revoked key lives on.
export { DEFAULT_KEY_CACHE_MS } from "../../config/defaults.ts";
import { DEFAULT_KEY_CACHE_MS } from "../../config/defaults.ts";

/** What the 503 beyond `maxLookups` says; auth.ts logs it as a refusal, rate-limited. */
export class TooManyKeyLookupsError extends UnavailableError {
  constructor() {
    super("too many distinct unknown API keys are being checked at once; retry");
  }
}

interface Known {
  key: ApiKeyInfo;
  /** When the backend answered (Date.now()). */
  at: number;
}

export function storedKeyCheck(keys: ApiKeys, options: StoredKeyCheckOptions = {}): StoredKeyCheck {
  const cacheMs = options.cacheMs ?? DEFAULT_KEY_CACHE_MS;
  const maxLookups = options.maxLookups ?? 32;
  // Accepted keys, without a ttl: whether an answer is still fresh is read from `at`.
  const known = new LRUCache<string, Known>({ max: options.maxKnown ?? 10_000 });
  // lru-cache values must be objects: a remembered miss.
  const misses = new LRUCache<string, { miss: true }>({
    max: options.maxEntries ?? 10_000,
    ttl: cacheMs,
  });
  // One lookup per key at a time; only unknown keys' are counted against maxLookups.
  const inFlight = new Map<string, Promise<ApiKeyInfo | null>>();
  let unknownInFlight = 0;

  const lookup = (digest: string, candidate: string, counted: boolean) => {
    if (counted) unknownInFlight++;
    const p = (async () => {
      try {
        const key = await keys.verify(candidate);
        if (key === null) {
          known.delete(digest);
          misses.set(digest, { miss: true });
        } else {
          misses.delete(digest);
          known.set(digest, { key, at: Date.now() });
        }
        return key;
      } finally {
        inFlight.delete(digest);
        if (counted) unknownInFlight--;
      }
    })();
    inFlight.set(digest, p);
    return p;
  };

  return (candidate) => {
    if (!isStoredKeyShape(candidate)) return null;
    const digest = hash("sha256", candidate, "base64url");
    const pending = inFlight.get(digest);
    const k = known.get(digest);
    if (k !== undefined) {
      const age = Date.now() - k.at;
      if (age < cacheMs) {
        // Refresh ahead: the answer stays fresh for a key in use. A failed refresh
        // is forgotten; the answer then runs out and the next request asks itself.
        if (age >= cacheMs / 2 && pending === undefined)
          lookup(digest, candidate, false).catch(() => undefined);
        return usable(k.key);
      }
      return pending ?? lookup(digest, candidate, false);
    }
    if (misses.has(digest)) return null;
    if (pending !== undefined) return pending;
    if (unknownInFlight >= maxLookups) return Promise.reject(new TooManyKeyLookupsError());
    return lookup(digest, candidate, true);
  };
}

/** A key is not accepted past its own expiry, whatever the cache says. */
function usable(key: ApiKeyInfo): ApiKeyInfo | null {
  return key.expiresAt !== null && key.expiresAt.getTime() <= Date.now() ? null : key;
}
