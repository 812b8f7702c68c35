/**
 * The coordination settings: which backend (WF_COORDINATION), where Redis is
 * (REDIS_URL, or REDIS_SENTINELS + REDIS_SENTINEL_NAME), the key prefix and
 * what rate limits do while their backend is down. The cross-checks between
 * them (redis needs a URL or sentinels, not both) run after every key parsed.
 */
import {
  CoordinationKinds,
  type CoordinationKind,
} from "../engine/coordination/coordination-port.ts";
import { ConfigError, InvalidValue } from "./config-error.ts";
import { RateLimitFailureModes, type RateLimitFailure, type TaskflowConfig } from "./config.ts";

const PREFIX = /^[A-Za-z0-9:_.-]{0,64}$/;
const SENTINEL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const HOST_PORT = /^\[?([A-Za-z0-9.:_-]+?)\]?:([0-9]{1,5})$/;

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T {
  const text = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (typeof text === "string" && (allowed as readonly string[]).includes(text)) return text as T;
  throw new InvalidValue(`${JSON.stringify(value)} is not one of ${allowed.join(", ")}`);
}

export const parseCoordination = (value: unknown): CoordinationKind =>
  oneOf(value, CoordinationKinds);

export const parseRateLimitFailure = (value: unknown): RateLimitFailure =>
  oneOf(value, RateLimitFailureModes);

/** "" or null: no Redis. Otherwise a redis:// or rediss:// URL. */
export function parseRedisUrl(value: unknown): string | null {
  if (value === null || value === "") return null;
  if (typeof value !== "string") throw new InvalidValue("must be a redis:// or rediss:// URL");
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidValue("is not a URL (expected redis://host:6379)");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    // Never echo the URL: it may carry a password.
    throw new InvalidValue(`scheme ${url.protocol} is not redis: or rediss:`);
  }
  return url.toString();
}

export function parseKeyPrefix(value: unknown): string {
  if (typeof value !== "string" || !PREFIX.test(value)) {
    throw new InvalidValue(
      "must be at most 64 characters of letters, digits and : _ . - (e.g. taskflow:)",
    );
  }
  return value;
}

/** "host:port,host:port" or an array of those (or of { host, port }); empty: no sentinels. */
export function parseSentinels(value: unknown): { host: string; port: number }[] {
  const items = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items)) {
    throw new InvalidValue('must be a comma list of "host:port" (e.g. s1:26379,s2:26379)');
  }
  return items
    .filter((i) => !(typeof i === "string" && i.trim() === ""))
    .map((item: unknown) => {
      if (typeof item === "object" && item !== null) {
        const { host, port } = item as { host?: unknown; port?: unknown };
        if (typeof host === "string" && typeof port === "number") return checkPort(host, port);
      }
      const m = typeof item === "string" ? HOST_PORT.exec(item.trim()) : null;
      if (m === null) throw new InvalidValue(`${JSON.stringify(item)} is not "host:port"`);
      return checkPort(m[1] ?? "", Number(m[2]));
    });
}

function checkPort(host: string, port: number): { host: string; port: number } {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new InvalidValue(`port ${port} of ${host} is not 1–65535`);
  }
  return { host, port };
}

export function parseSentinelName(value: unknown): string | null {
  if (value === null || value === "") return null;
  if (typeof value !== "string" || !SENTINEL_NAME.test(value)) {
    throw new InvalidValue("must be the master's name as the sentinels know it (e.g. mymaster)");
  }
  return value;
}

/** The checks between settings, after each parsed on its own. */
export function assertCoordinationSettings(
  c: Pick<TaskflowConfig, "coordination" | "redisUrl" | "redisSentinels" | "redisSentinelName">,
): void {
  const issues: string[] = [];
  const sentinels = c.redisSentinels.length > 0;
  if (c.coordination === "redis" && c.redisUrl === null && !sentinels) {
    issues.push("WF_COORDINATION is redis but neither REDIS_URL nor REDIS_SENTINELS is set");
  }
  if (c.redisUrl !== null && sentinels) {
    issues.push("REDIS_URL and REDIS_SENTINELS are both set: choose one");
  }
  if (sentinels && c.redisSentinelName === null) {
    issues.push("REDIS_SENTINELS is set but REDIS_SENTINEL_NAME (the master's name) is not");
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
