/**
 * A coordination whose primitives are built on first use: a node that never
 * takes a lock never opens the dedicated lock connection, one that never
 * limits a rate never prepares that statement. The three backends differ only
 * in how each primitive is built, how a round trip is made and what else
 * close() must end.
 */
import type { Coordination } from "../../engine/coordination/coordination-port.ts";
import type { Locks } from "../../engine/coordination/locks-port.ts";
import type { OneTimeCodes } from "../../engine/coordination/one-time-codes-port.ts";
import type { OpaqueTokens } from "../../engine/coordination/opaque-tokens-port.ts";
import type { RateLimiters } from "../../engine/coordination/rate-limiter-port.ts";
import type { TtlCache } from "../../engine/coordination/ttl-cache-port.ts";

export interface PrimitiveBuilders {
  backend: Coordination["backend"];
  locks(): Locks;
  limiters(): RateLimiters;
  cache(): TtlCache;
  /** Codes spend the limiters (the per-subject issue budget). */
  codes(limiters: RateLimiters): OneTimeCodes;
  tokens(): OpaqueTokens;
  ping(): Promise<void>;
  /** What close() ends after the locks (e.g. a connection this backend opened). */
  closeRest?(): Promise<void>;
}

export function lazyCoordination(b: PrimitiveBuilders): Coordination {
  const locks = once(() => b.locks());
  const limiters = once(() => b.limiters());
  const cache = once(() => b.cache());
  const codes = once(() => b.codes(limiters.get()));
  const tokens = once(() => b.tokens());
  return {
    backend: b.backend,
    get locks() {
      return locks.get();
    },
    get limiters() {
      return limiters.get();
    },
    get cache() {
      return cache.get();
    },
    get codes() {
      return codes.get();
    },
    get tokens() {
      return tokens.get();
    },
    ping: () => b.ping(),
    async close() {
      await locks.built()?.close();
      await b.closeRest?.();
    },
  };
}

function once<T>(build: () => T): { get(): T; built(): T | undefined } {
  let value: T | undefined;
  let done = false;
  return {
    get() {
      if (!done) {
        value = build();
        done = true;
      }
      return value as T;
    },
    built: () => (done ? value : undefined),
  };
}
