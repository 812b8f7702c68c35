import type { Layer, Setting } from "./layers.ts";

const LAYER = "environment";
const GROUP_PREFIX = "WF_GROUP_";

/** Environment variable → config key; docs/configuration.md lists them all. */
const VARIABLES = {
  ADDR: "addr",
  WF_WORKER_HEALTH_ADDR: "workerHealthAddr",
  DATABASE_URL: "databaseUrl",
  WF_USERS: "users",
  WF_API_KEYS: "apiKeys",
  NODE_ENV: "nodeEnv",
  BODY_LIMIT: "bodyLimit",
  LOG_LEVEL: "logLevel",
  WF_RATE_LIMIT: "rateLimit",
  WF_EXPOSE_STACKS: "exposeErrorStacks",
  WF_MAX_IN_FLIGHT: "maxInFlight",
  WF_MAX_EVENT_LOOP_DELAY: "maxEventLoopDelay",
  WF_RUN_MAX_PENDING_SIGNALS: "runMaxPendingSignals",
  WF_RUN_MAX_HISTORY: "runMaxHistory",
  WF_RUN_QUARANTINE_AFTER: "runQuarantineAfter",
  WF_SIGNAL_MAX_BYTES: "signalMaxBytes",
  WF_SQLITE_SYNCHRONOUS: "sqliteSynchronous",
  WF_COORDINATION: "coordination",
  REDIS_URL: "redisUrl",
  REDIS_SENTINELS: "redisSentinels",
  REDIS_SENTINEL_NAME: "redisSentinelName",
  WF_KEY_PREFIX: "keyPrefix",
  WF_RATE_LIMIT_ON_ERROR: "rateLimitOnError",
  WF_TRIGGER_RESPONSE_TIMEOUT: "triggerResponseTimeout",
  WF_IDEMPOTENCY_MARKER_TTL: "idempotencyMarkerTtl",
  WF_DEFINITION_CACHE: "definitionCache",
  WF_DEFINITION_CACHE_ENABLED: "definitionCacheEnabled",
  WF_DEFINITION_CACHE_PREFIX: "definitionCachePrefix",
  WF_DEFINITION_CACHE_SLIDING: "definitionCacheSliding",
  WF_DEFINITION_CACHE_ABSOLUTE: "definitionCacheAbsolute",
  WF_DEFINITION_CACHE_CONSISTENCY: "definitionCacheConsistency",
  WF_DEFINITION_CACHE_POLL: "definitionCachePoll",
  WF_DEFINITION_LOCK_TIMEOUT: "definitionLockTimeout",
  WF_DEFINITION_FENCE_MAX_AGE: "definitionFenceMaxAge",
  WF_CONSOLE_API_KEY: "consoleApiKey",
  WF_CONSOLE_TRUSTED_HEADER: "consoleTrustedHeader",
  WF_CONSOLE_TRUSTED_PROXIES: "consoleTrustedProxies",
  WF_CONSOLE_OPERATOR_GROUPS: "consoleOperatorGroups",
  WF_CONSOLE_ADMIN_GROUPS: "consoleAdminGroups",
  WF_CONSOLE_ORIGINS: "consoleOrigins",
  WF_CONSOLE_SESSION_TTL: "consoleSessionTtl",
  WF_CONSOLE_REFRESH_TTL: "consoleRefreshTtl",
  WF_CONSOLE_STATIC_DIR: "consoleStaticDir",
  WF_CONSOLE_TENANT: "consoleTenant",
  WF_CONSOLE_OIDC_ISSUER: "consoleOidcIssuer",
  WF_CONSOLE_OIDC_CLIENT_ID: "consoleOidcClientId",
  WF_CONSOLE_OIDC_CLIENT_SECRET: "consoleOidcClientSecret",
  WF_CONSOLE_OIDC_REDIRECT_URL: "consoleOidcRedirectUrl",
  WF_CONSOLE_OIDC_USER_CLAIM: "consoleOidcUserClaim",
  WF_CONSOLE_OIDC_SCOPES: "consoleOidcScopes",
} as const;

/** Every variable the environment layer reads, besides WF_GROUP_<id> (for `taskflow --help`). */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.keys(VARIABLES);

/** Path of the optional JSON config file when no --config flag is given. */
export const CONFIG_FILE_VARIABLE = "TASKFLOW_CONFIG";

/**
 * The environment layer. An empty variable counts as unset (so DATABASE_URL=""
 * keeps the SQLite default and ADDR="" keeps :8081), which is what shells and
 * compose files produce for "not configured".
 */
export function envLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const out: Layer = {};
  for (const [name, key] of Object.entries(VARIABLES)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") out[key] = { layer: LAYER, name, value };
  }
  const groups = groupsFromEnv(env);
  if (groups) out.groups = groups;
  return out;
}

/** Every WF_GROUP_<id> variable is one group; the id keeps the variable's spelling. */
function groupsFromEnv(env: Readonly<Record<string, string | undefined>>): Setting | undefined {
  const groups: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(GROUP_PREFIX) && value !== undefined) {
      groups[name.slice(GROUP_PREFIX.length)] = value;
    }
  }
  if (Object.keys(groups).length === 0) return undefined;
  return {
    layer: LAYER,
    name: `${GROUP_PREFIX}*`,
    value: groups,
    subName: (id) => `${GROUP_PREFIX}${id}`,
  };
}
