import { DEFAULT_CONTEXT_OPTIONS } from "../engine/durable/context-options.ts";
import { DEFAULT_RUN_LIMITS } from "../engine/durable/run-limits.ts";
import type { Layer } from "./layers.ts";
import { settingsOf } from "./layers.ts";

/** Every interface; in development, when ADDR is not set, DEVELOPMENT_HOST instead. */
export const DEFAULT_ADDR = ":8081";
export const DEVELOPMENT_HOST = "127.0.0.1";
export const DEFAULT_DATABASE_URL = "sqlite:./taskflow.db";
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/**
 * Off: the only client is the operator's own backend (BFF) holding the key, a
 * per-process budget multiplies with the number of nodes, and any fixed number
 * would be wrong for some host (and would throttle `npm run bench`). Operators
 * turn it on deliberately with WF_RATE_LIMIT.
 */
export const DEFAULT_RATE_LIMIT = "off";
/**
 * Load shedding (server/load-shedding.ts) is on by default: past these a node
 * answers 503 at once instead of queueing without bound. 1,024 in flight is
 * 0.3–1 s of work at the 1,000–3,000 requests/s one node serves (2 cores); a
 * mean event-loop delay of 500 ms is far above a busy but healthy node and
 * below the point where a fresh /healthz connection takes more than 1 s.
 */
export const DEFAULT_MAX_IN_FLIGHT = 1024;
export const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 500;
/** Survives a crash of the process, not of the OS; FULL costs an fsync per COMMIT. */
export const DEFAULT_SQLITE_SYNCHRONOUS = "normal";

/**
 * A few seconds: enough for a run that answers from its first states (a
 * lookup, a decision, a `respond`); a hook's run that waits for people is
 * answered 202 at once anyway when its definition has no `respond` state.
 */
export const DEFAULT_TRIGGER_RESPONSE_TIMEOUT_MS = 5000;

/**
 * How long an Idempotency-Key's marker blocks its key. Far longer than a
 * request runs (the slowest route is one transaction; a store outage fails
 * within the pool's 10 s connect timeout), so it does not expire under a live
 * request; short enough that a node killed mid-request blocks the key for one
 * minute, not for the 24 h of a result: the client's retries get 409 until
 * then, then run.
 */
export const DEFAULT_IDEMPOTENCY_MARKER_TTL_MS = 60_000;

/** Namespaces every coordination key and lock name of this deployment. */
export const DEFAULT_KEY_PREFIX = "taskflow:";

/**
 * How long a node trusts its answer for a stored API key (server/stored-key-check.ts):
 * a revoked key keeps working for up to this long, which `taskflow keys` tells the operator.
 */
export const DEFAULT_KEY_CACHE_MS = 5000;

/**
 * Definition cache: payloads live on each node unless Redis is chosen. Every
 * committed change moves the cache revision, so expiry is not what keeps
 * copies correct; it only bounds memory. Five idle minutes keep what is in
 * use warm; one hour from the write caps how long any one copy is served, so
 * a copy that outlived a bug or a manual fix in the database goes within the
 * hour.
 */
export const DEFAULT_DEFINITION_CACHE_PREFIX = "taskflow:defs:";
export const DEFAULT_DEFINITION_CACHE_SLIDING_MS = 5 * 60 * 1000;
export const DEFAULT_DEFINITION_CACHE_ABSOLUTE_MS = 60 * 60 * 1000;
/** The bounded mode's staleness bound when no push arrives (a lost NOTIFY, MariaDB without Redis). */
export const DEFAULT_DEFINITION_CACHE_POLL_MS = 1000;
/** As long as a human would wait for a publish button; a publish holds the lock for milliseconds. */
export const DEFAULT_DEFINITION_LOCK_TIMEOUT_MS = 10_000;
/**
 * A publish completes its fence within milliseconds; one still open after a
 * minute was left by a writer that died or lost its database mid-commit.
 */
export const DEFAULT_DEFINITION_FENCE_MAX_AGE_MS = 60_000;

/**
 * Console sessions: 15 minutes bounds how long a stolen session token (or a
 * revoked login's last session) works; 8 hours is a working day, after which
 * the person logs in again with a fresh code.
 */
export const DEFAULT_CONSOLE_SESSION_TTL_MS = 15 * 60 * 1000;
export const DEFAULT_CONSOLE_REFRESH_TTL_MS = 8 * 60 * 60 * 1000;

/**
 * The first layer. nodeEnv defaults to production: the CLI treats an unset
 * NODE_ENV as production so that a forgotten variable fails closed (keys required);
 * `npm start` sets development explicitly.
 */
export function defaultsLayer(): Layer {
  return settingsOf("defaults", {
    addr: DEFAULT_ADDR,
    // Off: a server and workers on one host would otherwise contend for one port.
    workerHealthAddr: null,
    databaseUrl: "",
    users: [],
    groups: {},
    apiKeys: [],
    nodeEnv: "production",
    bodyLimit: DEFAULT_BODY_LIMIT,
    logLevel: "info",
    rateLimit: DEFAULT_RATE_LIMIT,
    exposeErrorStacks: false,
    maxInFlight: DEFAULT_MAX_IN_FLIGHT,
    maxEventLoopDelay: DEFAULT_MAX_EVENT_LOOP_DELAY_MS,
    runMaxPendingSignals: DEFAULT_RUN_LIMITS.maxPendingSignals,
    runMaxHistory: DEFAULT_RUN_LIMITS.maxHistoryEvents,
    signalMaxBytes: DEFAULT_RUN_LIMITS.maxSignalBytes,
    runQuarantineAfter: DEFAULT_CONTEXT_OPTIONS.quarantineAfter,
    sqliteSynchronous: DEFAULT_SQLITE_SYNCHRONOUS,
    coordination: "sql",
    redisUrl: null,
    redisSentinels: [],
    redisSentinelName: null,
    keyPrefix: DEFAULT_KEY_PREFIX,
    rateLimitOnError: "open",
    triggerResponseTimeout: DEFAULT_TRIGGER_RESPONSE_TIMEOUT_MS,
    idempotencyMarkerTtl: DEFAULT_IDEMPOTENCY_MARKER_TTL_MS,
    definitionCache: "memory",
    definitionCacheEnabled: true,
    definitionCachePrefix: DEFAULT_DEFINITION_CACHE_PREFIX,
    definitionCacheSliding: DEFAULT_DEFINITION_CACHE_SLIDING_MS,
    definitionCacheAbsolute: DEFAULT_DEFINITION_CACHE_ABSOLUTE_MS,
    definitionCacheConsistency: "strict",
    definitionCachePoll: DEFAULT_DEFINITION_CACHE_POLL_MS,
    definitionLockTimeout: DEFAULT_DEFINITION_LOCK_TIMEOUT_MS,
    definitionFenceMaxAge: DEFAULT_DEFINITION_FENCE_MAX_AGE_MS,
    consoleApiKey: null,
    consoleTrustedHeader: null,
    consoleTrustedProxies: [],
    consoleOperatorGroups: [],
    consoleAdminGroups: [],
    consoleOrigins: [],
    consoleSessionTtl: DEFAULT_CONSOLE_SESSION_TTL_MS,
    consoleRefreshTtl: DEFAULT_CONSOLE_REFRESH_TTL_MS,
    consoleStaticDir: null,
    consoleTenant: "default",
    consoleOidcIssuer: null,
    consoleOidcClientId: null,
    consoleOidcClientSecret: null,
    consoleOidcRedirectUrl: null,
    consoleOidcUserClaim: "sub",
    consoleOidcScopes: ["openid"],
  });
}
