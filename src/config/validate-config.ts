import { ConfigError, InvalidValue } from "./config-error.ts";
import { recordSources } from "./config-sources.ts";
import { isDevelopment, type ConfigKey, type TaskflowConfig } from "./config.ts";
import type { Layer, Setting } from "./layers.ts";
import { DEVELOPMENT_HOST } from "./defaults.ts";
import { parseAddr, parseOptionalAddr } from "./parse-addr.ts";
import {
  parseApiKeys,
  parseBodyLimit,
  parseBoolean,
  parseDatabaseUrl,
  parseGroups,
  parseIds,
  parseLogLevel,
  parseNodeEnv,
  parseSqliteSynchronous,
} from "./parse-values.ts";
import {
  assertOidcSettings,
  parseOidcClientText,
  parseOidcIssuer,
  parseOidcRedirectUrl,
  parseOidcScopes,
  parseOidcUserClaim,
} from "./parse-console-oidc.ts";
import { parseMaxEventLoopDelay, parseMaxInFlight } from "./parse-load-limits.ts";
import {
  parseRunMaxHistory,
  parseRunMaxPendingSignals,
  parseRunQuarantineAfter,
  parseSignalMaxBytes,
} from "./parse-run-limits.ts";
import { parseRateLimit } from "./parse-rate-limit.ts";
import { parseTriggerResponseTimeout } from "./parse-trigger-timeout.ts";
import { parseIdempotencyMarkerTtl } from "./parse-idempotency-marker-ttl.ts";
import {
  assertDefinitionCacheSettings,
  parseCacheConsistency,
  parseCachePoll,
  parseLockTimeout,
  parseCacheDuration,
  parseDefinitionCacheProvider,
} from "./parse-definition-cache.ts";
import {
  assertCoordinationSettings,
  parseCoordination,
  parseKeyPrefix,
  parseRateLimitFailure,
  parseRedisUrl,
  parseSentinelName,
  parseSentinels,
} from "./parse-coordination.ts";
import {
  assertConsoleSettings,
  parseConsoleApiKey,
  parseConsoleGroups,
  parseOrigins,
  parseRefreshTtl,
  parseSessionTtl,
  parseStaticDir,
  parseConsoleTenant,
  parseTrustedHeader,
  parseTrustedProxies,
} from "./parse-console.ts";

const PARSERS: { [K in ConfigKey]: (value: unknown) => TaskflowConfig[K] } = {
  addr: parseAddr,
  workerHealthAddr: parseOptionalAddr,
  databaseUrl: parseDatabaseUrl,
  users: parseIds,
  groups: parseGroups,
  apiKeys: parseApiKeys,
  nodeEnv: parseNodeEnv,
  bodyLimit: parseBodyLimit,
  logLevel: parseLogLevel,
  rateLimit: parseRateLimit,
  exposeErrorStacks: parseBoolean,
  maxInFlight: parseMaxInFlight,
  maxEventLoopDelay: parseMaxEventLoopDelay,
  runMaxPendingSignals: parseRunMaxPendingSignals,
  runMaxHistory: parseRunMaxHistory,
  signalMaxBytes: parseSignalMaxBytes,
  runQuarantineAfter: parseRunQuarantineAfter,
  sqliteSynchronous: parseSqliteSynchronous,
  coordination: parseCoordination,
  redisUrl: parseRedisUrl,
  redisSentinels: parseSentinels,
  redisSentinelName: parseSentinelName,
  keyPrefix: parseKeyPrefix,
  rateLimitOnError: parseRateLimitFailure,
  triggerResponseTimeout: parseTriggerResponseTimeout,
  idempotencyMarkerTtl: parseIdempotencyMarkerTtl,
  definitionCache: parseDefinitionCacheProvider,
  definitionCacheEnabled: parseBoolean,
  definitionCachePrefix: parseKeyPrefix,
  definitionCacheSliding: parseCacheDuration,
  definitionCacheAbsolute: parseCacheDuration,
  definitionCacheConsistency: parseCacheConsistency,
  definitionCachePoll: parseCachePoll,
  definitionLockTimeout: parseLockTimeout,
  definitionFenceMaxAge: parseCacheDuration,
  consoleApiKey: parseConsoleApiKey,
  consoleTrustedHeader: parseTrustedHeader,
  consoleTrustedProxies: parseTrustedProxies,
  consoleOperatorGroups: parseConsoleGroups,
  consoleAdminGroups: parseConsoleGroups,
  consoleOrigins: parseOrigins,
  consoleSessionTtl: parseSessionTtl,
  consoleRefreshTtl: parseRefreshTtl,
  consoleStaticDir: parseStaticDir,
  consoleTenant: parseConsoleTenant,
  consoleOidcIssuer: parseOidcIssuer,
  consoleOidcClientId: parseOidcClientText,
  consoleOidcClientSecret: parseOidcClientText,
  consoleOidcRedirectUrl: parseOidcRedirectUrl,
  consoleOidcUserClaim: parseOidcUserClaim,
  consoleOidcScopes: parseOidcScopes,
};

export interface ValidateOptions {
  /**
   * Enforce "outside development, keys are required" (the security rule in docs/deployment.md). Off
   * for commands that never serve HTTP, such as `taskflow migrate`, and for `serve`, whose
   * createTaskflow checks the same rule once the database can say whether a stored key exists.
   */
  requireApiKeys?: boolean;
}

/**
 * Validates the merged layers once, collecting every problem so one run shows
 * them all, and returns a deeply frozen config.
 */
export function validateConfig(merged: Layer, options: ValidateOptions = {}): TaskflowConfig {
  const issues: string[] = [];
  const out: Partial<Record<ConfigKey, unknown>> = {};
  for (const key of Object.keys(PARSERS) as ConfigKey[]) {
    const setting = merged[key];
    if (!setting) {
      issues.push(`${key}: missing`);
      continue;
    }
    try {
      out[key] = PARSERS[key](setting.value);
    } catch (e) {
      if (!(e instanceof InvalidValue)) throw e;
      issues.push(`${where(setting, e.sub)}: ${e.message}`);
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const config = out as unknown as TaskflowConfig;
  assertCoordinationSettings(config);
  assertDefinitionCacheSettings(config);
  assertConsoleSettings(config);
  assertOidcSettings(config);
  if (options.requireApiKeys !== false) assertKeysOutsideDevelopment(config);
  const frozen = deepFreeze(withDevelopmentHost(config, merged));
  recordSources(frozen, merged);
  return frozen;
}

/**
 * A development node nobody configured listens on loopback only: it has no API
 * key, so every interface would hand the engine to the network. Any ADDR
 * (environment, file or code) is taken as it is.
 */
function withDevelopmentHost(config: TaskflowConfig, merged: Layer): TaskflowConfig {
  if (merged.addr?.layer !== "defaults" || !isDevelopment(config)) return config;
  return { ...config, addr: { host: DEVELOPMENT_HOST, port: config.addr.port } };
}

function where(s: Setting, sub: string | undefined): string {
  return `${s.layer} ${sub !== undefined && s.subName ? s.subName(sub) : s.name}`;
}

/**
 * A key an attacker cannot guess: 24 characters of a generated key are at least
 * 144 bits (base64url). Shorter ones ("k1", "secret") are what people type.
 */
export const MIN_API_KEY_LENGTH = 24;
const GENERATE_KEY = `node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`;

/** Exported so the server can refuse to start on a config built without this check. */
export function assertKeysOutsideDevelopment(c: Pick<TaskflowConfig, "apiKeys" | "nodeEnv">) {
  if (isDevelopment(c)) return;
  if (c.apiKeys.length === 0) throw noApiKeys(c, false);
  assertKeyLengthsOutsideDevelopment(c);
}

/**
 * Outside development without WF_API_KEYS: nobody could call the API.
 * `stored`: the database (coordination) was asked too and held no live key
 * (true), or could not be read (the error).
 */
export function noApiKeys(
  c: Pick<TaskflowConfig, "nodeEnv">,
  stored: boolean | Error,
): ConfigError {
  const env = JSON.stringify(c.nodeEnv);
  const createOne =
    `create one with 'taskflow keys create --name <name>' (same DATABASE_URL and ` +
    `WF_COORDINATION), set WF_API_KEYS (comma list of keys) or run with NODE_ENV=development`;
  if (stored === false) {
    return new ConfigError([
      `WF_API_KEYS is empty while NODE_ENV is ${env}: ` +
        `set WF_API_KEYS (comma list of keys) or run with NODE_ENV=development ` +
        `(the CLI treats an unset NODE_ENV as production)`,
    ]);
  }
  return new ConfigError([
    stored === true
      ? `WF_API_KEYS is empty and no live API key is stored while NODE_ENV is ${env}: ${createOne}`
      : `WF_API_KEYS is empty while NODE_ENV is ${env}, and the stored API keys cannot be ` +
        `read (${stored.message}): ${createOne}`,
  ]);
}

/** Outside development, every configured key is long enough to be unguessable. */
export function assertKeyLengthsOutsideDevelopment(
  c: Pick<TaskflowConfig, "apiKeys" | "nodeEnv">,
): void {
  if (isDevelopment(c)) return;
  // The key itself never appears in the message, only its position and length.
  const short = c.apiKeys.flatMap((k, i) =>
    k.length < MIN_API_KEY_LENGTH
      ? [
          `WF_API_KEYS: key #${i + 1} has ${k.length} characters; outside development a key ` +
            `needs at least ${MIN_API_KEY_LENGTH} (NODE_ENV is ${JSON.stringify(c.nodeEnv)}). ` +
            `Generate one: ${GENERATE_KEY}`,
        ]
      : [],
  );
  if (short.length > 0) throw new ConfigError(short);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}
