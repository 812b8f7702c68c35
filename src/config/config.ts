import type { CoordinationKind } from "../engine/coordination/coordination-port.ts";
import type { CacheConsistencyMode } from "../engine/definition-cache/cache-consistency.ts";
import type { CacheProviderKind } from "../engine/definition-cache/cache-provider-port.ts";

/** What the rate limit does while its backend cannot be reached (WF_RATE_LIMIT_ON_ERROR). */
export const RateLimitFailureModes = ["open", "closed"] as const;
export type RateLimitFailure = (typeof RateLimitFailureModes)[number];

/** The validated, frozen configuration every other module receives (never process.env). */
export const LogLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LogLevels)[number];

export interface ListenAddress {
  host: string;
  port: number;
}

/** SQLite's `synchronous` pragma: what a COMMIT waits for (see docs/configuration.md). */
export const SqliteSynchronousModes = ["normal", "full"] as const;
export type SqliteSynchronous = (typeof SqliteSynchronousModes)[number];

/** A request budget: at most `points` requests per window of `durationSeconds`. */
export interface RateLimit {
  points: number;
  durationSeconds: number;
}

export interface TaskflowConfig {
  readonly addr: Readonly<ListenAddress>;
  /** Where `taskflow worker` serves /healthz and /readyz; null: no listener (the default). */
  readonly workerHealthAddr: Readonly<ListenAddress> | null;
  /** Never empty after validation: an empty DATABASE_URL becomes the SQLite default file. */
  readonly databaseUrl: string;
  readonly users: readonly string[];
  /** Group id → member ids. */
  readonly groups: Readonly<Record<string, readonly string[]>>;
  readonly apiKeys: readonly string[];
  readonly nodeEnv: string;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  readonly logLevel: LogLevel;
  /** Requests per API key and tenant, per process; null when off (the default). */
  readonly rateLimit: Readonly<RateLimit> | null;
  /** Whether run errors returned by the API keep their stack text (off: server paths stay private). */
  readonly exposeErrorStacks: boolean;
  /** /v1 requests in flight past which new ones are shed with 503; 0 = no limit. */
  readonly maxInFlight: number;
  /** Mean event-loop delay (ms, over 1 s) past which /v1 requests are shed with 503; 0 = off. */
  readonly maxEventLoopDelay: number;
  /** Unconsumed signals a run may hold; a signal past it is 409; 0 = no cap. */
  readonly runMaxPendingSignals: number;
  /** Events of a run's generation (its unconsumed signals included) past which a signal is 409; 0 = no cap. */
  readonly runMaxHistory: number;
  /** Bytes of one signal's payload (stored JSON) past which it is 413; 0 = no cap. */
  readonly signalMaxBytes: number;
  /** Executions in a row that neither park nor finish, past which a run is quarantined. */
  readonly runQuarantineAfter: number;
  /** normal: a COMMIT survives a process crash; full: also an OS crash or power loss. */
  readonly sqliteSynchronous: SqliteSynchronous;
  /** Where locks, shared rate limits, idempotency keys and API keys live: sql (the store's database), redis or memory. */
  readonly coordination: CoordinationKind;
  /** redis:// URL; null when Redis is not used (or reached through sentinels). */
  readonly redisUrl: string | null;
  /** Sentinels to ask for the Redis master; empty when not used. */
  readonly redisSentinels: readonly Readonly<{ host: string; port: number }>[];
  readonly redisSentinelName: string | null;
  /** In front of every coordination key and lock name (two deployments can share one Redis). */
  readonly keyPrefix: string;
  /** While the rate limiter's backend is down: open lets requests through (with a warning), closed refuses them (503). */
  readonly rateLimitOnError: RateLimitFailure;
  /** How long a /v1/hooks request waits for its run's `respond` state (ms); 0: answer 202 at once. */
  readonly triggerResponseTimeout: number;
  /** How long (ms) an Idempotency-Key's first request holds the key: a node that dies mid-request blocks it that long. */
  readonly idempotencyMarkerTtl: number;
  /** Where cached definition reads live: memory (each node its own) or redis (shared by all nodes). */
  readonly definitionCache: CacheProviderKind;
  /** false: no payload is read or written (the consistency ledger still runs). */
  readonly definitionCacheEnabled: boolean;
  /** In front of every definition cache key. */
  readonly definitionCachePrefix: string;
  /** Default idle time (ms) after which an entry ends; 0: no sliding expiry. */
  readonly definitionCacheSliding: number;
  /** Default lifetime (ms) from the write, however often read; 0: none. */
  readonly definitionCacheAbsolute: number;
  /**
   * strict: every cached read asks the ledger (one query) — no read that starts
   * after a change completed sees the old data; bounded: the node keeps the
   * ledger state in memory (pushed, and polled every definitionCachePoll ms) —
   * a hit costs no query, and a change is seen within that bound.
   */
  readonly definitionCacheConsistency: CacheConsistencyMode;
  /** bounded mode: how often (ms) a node re-reads the ledger state without being told. */
  readonly definitionCachePoll: number;
  /** How long (ms) a publish or retract waits for its definition's lock before it gives up. */
  readonly definitionLockTimeout: number;
  /** A fence incomplete this long (ms), or whose owner stopped beating, is completed by the reaper; 0: never. */
  readonly definitionFenceMaxAge: number;
  /** The key the Console calls the engine with; null: the first of WF_API_KEYS (docs/console.md). */
  readonly consoleApiKey: string | null;
  /** Lower-case header an authenticating proxy names the user in; null: trusted-header login off. */
  readonly consoleTrustedHeader: string | null;
  /** IPs and CIDRs allowed to send consoleTrustedHeader; a request from elsewhere with it is refused. */
  readonly consoleTrustedProxies: readonly string[];
  /** Directory groups whose members are Console operators. */
  readonly consoleOperatorGroups: readonly string[];
  /** Directory groups whose members are Console admins (operators too). */
  readonly consoleAdminGroups: readonly string[];
  /** Origins allowed to send mutating Console requests; empty: the request's own Host. */
  readonly consoleOrigins: readonly string[];
  /** Lifetime (ms) of a Console session token; a refresh renews it. */
  readonly consoleSessionTtl: number;
  /** Lifetime (ms) of a Console login: its refresh token rotates within it. */
  readonly consoleRefreshTtl: number;
  /** Directory of the Console's built pages; null: none served (the API alone). */
  readonly consoleStaticDir: string | null;
  /** The one tenant a Console acts in: its logins and every engine call it makes. */
  readonly consoleTenant: string;
  /** The OpenID Connect provider's issuer; null: that login is off. */
  readonly consoleOidcIssuer: string | null;
  /** The Console's client id at the provider. */
  readonly consoleOidcClientId: string | null;
  /** Its client secret; null: a public client (PKCE alone). Never logged. */
  readonly consoleOidcClientSecret: string | null;
  /** The callback address registered at the provider (…/console/api/auth/oidc/callback). */
  readonly consoleOidcRedirectUrl: string | null;
  /** The ID token claim that names the directory user (default sub). */
  readonly consoleOidcUserClaim: string;
  /** The scopes asked for; openid first. */
  readonly consoleOidcScopes: readonly string[];
}

export type ConfigKey = keyof TaskflowConfig;

export const ConfigKeys: readonly ConfigKey[] = [
  "addr",
  "workerHealthAddr",
  "databaseUrl",
  "users",
  "groups",
  "apiKeys",
  "nodeEnv",
  "bodyLimit",
  "logLevel",
  "rateLimit",
  "exposeErrorStacks",
  "maxInFlight",
  "maxEventLoopDelay",
  "runMaxPendingSignals",
  "runMaxHistory",
  "signalMaxBytes",
  "runQuarantineAfter",
  "sqliteSynchronous",
  "coordination",
  "redisUrl",
  "redisSentinels",
  "redisSentinelName",
  "keyPrefix",
  "rateLimitOnError",
  "triggerResponseTimeout",
  "idempotencyMarkerTtl",
  "definitionCache",
  "definitionCacheEnabled",
  "definitionCachePrefix",
  "definitionCacheSliding",
  "definitionCacheAbsolute",
  "definitionCacheConsistency",
  "definitionCachePoll",
  "definitionLockTimeout",
  "definitionFenceMaxAge",
  "consoleApiKey",
  "consoleTrustedHeader",
  "consoleTrustedProxies",
  "consoleOperatorGroups",
  "consoleAdminGroups",
  "consoleOrigins",
  "consoleSessionTtl",
  "consoleRefreshTtl",
  "consoleStaticDir",
  "consoleTenant",
  "consoleOidcIssuer",
  "consoleOidcClientId",
  "consoleOidcClientSecret",
  "consoleOidcRedirectUrl",
  "consoleOidcUserClaim",
  "consoleOidcScopes",
];

/**
 * What a config file or code may set. Values are raw (a list may be a comma
 * string or an array, addr a "host:port" string or an object) and are
 * validated only after all layers are merged.
 */
export interface ConfigOverrides {
  addr?: string | ListenAddress | undefined;
  /** As addr; "" or null: no health listener. */
  workerHealthAddr?: string | ListenAddress | null | undefined;
  databaseUrl?: string | undefined;
  users?: string | readonly string[] | undefined;
  groups?: Record<string, string | readonly string[]> | undefined;
  apiKeys?: string | readonly string[] | undefined;
  nodeEnv?: string | undefined;
  bodyLimit?: number | undefined;
  logLevel?: LogLevel | undefined;
  /** "2000/1s", "100/1m", "off", "0", false, or { points, durationSeconds }. */
  rateLimit?: string | number | false | RateLimit | undefined;
  /** true/false, or "true"/"false"/"1"/"0". */
  exposeErrorStacks?: boolean | string | undefined;
  /** A number, or a string of digits; 0 or "off" disables. */
  maxInFlight?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits; 0 or "off" disables. */
  maxEventLoopDelay?: string | number | undefined;
  /** A number, or a string of digits; 0 or "off" disables. */
  runMaxPendingSignals?: string | number | undefined;
  /** A number, or a string of digits; 0 or "off" disables. */
  runMaxHistory?: string | number | undefined;
  /** Bytes, as a number or a string of digits; 0 or "off" disables. */
  signalMaxBytes?: string | number | undefined;
  /** A whole number ≥ 1, as a number or a string of digits. */
  runQuarantineAfter?: string | number | undefined;
  /** "normal" or "full" (any case). */
  sqliteSynchronous?: string | undefined;
  /** "sql", "redis" or "memory". */
  coordination?: string | undefined;
  redisUrl?: string | null | undefined;
  /** "host:port,host:port" or a list (a later layer's list replaces an earlier one whole). */
  redisSentinels?: string | readonly (string | { host: string; port: number })[] | undefined;
  redisSentinelName?: string | null | undefined;
  keyPrefix?: string | undefined;
  /** "open" or "closed". */
  rateLimitOnError?: string | undefined;
  /** Milliseconds (0 – 60000), as a number or a string of digits; 0 or "off": never wait. */
  triggerResponseTimeout?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits. */
  idempotencyMarkerTtl?: string | number | undefined;
  /** "memory" or "redis". */
  definitionCache?: string | undefined;
  /** true/false, or "true"/"false"/"1"/"0". */
  definitionCacheEnabled?: boolean | string | undefined;
  definitionCachePrefix?: string | undefined;
  /** Milliseconds, as a number or a string of digits; 0 or "off": no sliding expiry. */
  definitionCacheSliding?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits; 0 or "off": no absolute expiry. */
  definitionCacheAbsolute?: string | number | undefined;
  /** "strict" or "bounded". */
  definitionCacheConsistency?: string | undefined;
  /** Milliseconds, as a number or a string of digits. */
  definitionCachePoll?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits. */
  definitionLockTimeout?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits; 0 or "off": the reaper never completes a fence. */
  definitionFenceMaxAge?: string | number | undefined;
  consoleApiKey?: string | null | undefined;
  /** A header name, e.g. "X-Forwarded-User"; "" or null: off. */
  consoleTrustedHeader?: string | null | undefined;
  /** IPs and CIDRs, as a comma string or a list. */
  consoleTrustedProxies?: string | readonly string[] | undefined;
  consoleOperatorGroups?: string | readonly string[] | undefined;
  consoleAdminGroups?: string | readonly string[] | undefined;
  /** "https://console.example.com", as a comma string or a list. */
  consoleOrigins?: string | readonly string[] | undefined;
  /** Milliseconds, as a number or a string of digits. */
  consoleSessionTtl?: string | number | undefined;
  /** Milliseconds, as a number or a string of digits. */
  consoleRefreshTtl?: string | number | undefined;
  consoleStaticDir?: string | null | undefined;
  consoleTenant?: string | undefined;
  consoleOidcIssuer?: string | null | undefined;
  consoleOidcClientId?: string | null | undefined;
  consoleOidcClientSecret?: string | null | undefined;
  consoleOidcRedirectUrl?: string | null | undefined;
  consoleOidcUserClaim?: string | undefined;
  /** "openid email", as a space or comma string or a list. */
  consoleOidcScopes?: string | readonly string[] | undefined;
}

export const isDevelopment = (c: Pick<TaskflowConfig, "nodeEnv">) => c.nodeEnv === "development";
