/**
 * Coordination: the primitives several nodes need to agree on something
 * without a broker. The same five ports have one implementation per backend
 * (memory, SQL on the store's own database, Redis), chosen by configuration
 * alone; the engine and the server only ever see these interfaces.
 *
 * Glossary
 * - tenant: every name and key below lives inside one tenant; two tenants'
 *   "same" name are two different locks, counters, cache entries, codes.
 * - key prefix: a namespace in front of every name, so two deployments (or two
 *   tests) can share one Redis or one database without seeing each other.
 * - lease: how long a lock stays held without being extended; a holder that
 *   dies is replaced when its lease ends (or at once, where the backend ties the
 *   lock to a connection that the holder's death closes).
 * - fencing token: a number that grows every time a lock is granted. A resource
 *   that remembers the largest token it has seen refuses writes carrying a
 *   smaller one, so a holder that lost its lock (paused, partitioned) cannot
 *   overwrite what the next holder wrote.
 * - window: the time over which a rate limiter counts points; fixed windows
 *   start at multiples of their length (on every node and backend alike), a
 *   sliding one always ends now.
 * - one-time code: a short secret sent to a person (log in, confirm), stored only
 *   as a hash, good for a few guesses and a few minutes.
 * - opaque token: a long random secret handed to a client (a session, a refresh
 *   token), stored only as its SHA-256; its family is the chain of tokens one
 *   login rotated through.
 *
 * This file is the port as a whole: the five primitives of one backend, opened
 * and closed together.
 */
import type { Locks } from "./locks-port.ts";
import type { OneTimeCodes } from "./one-time-codes-port.ts";
import type { OpaqueTokens } from "./opaque-tokens-port.ts";
import type { RateLimiters } from "./rate-limiter-port.ts";
import type { TtlCache } from "./ttl-cache-port.ts";

export const CoordinationKinds = ["sql", "redis", "memory"] as const;
export type CoordinationKind = (typeof CoordinationKinds)[number];

export interface Coordination {
  /** Which implementation this is, for logs and /readyz: memory, sqlite, postgres, mysql or redis. */
  readonly backend: "memory" | "sqlite" | "postgres" | "mysql" | "redis";
  readonly locks: Locks;
  readonly limiters: RateLimiters;
  readonly cache: TtlCache;
  readonly codes: OneTimeCodes;
  readonly tokens: OpaqueTokens;
  /** One round trip to the backend; rejects with UnavailableError when it cannot be reached. */
  ping(): Promise<void>;
  /** Closes what this coordination opened (never a connection the host handed in). */
  close(): Promise<void>;
}
