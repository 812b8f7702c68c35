/**
 * The Console's settings (docs/console.md): the key it calls the engine with,
 * the trusted-header login behind an authenticating proxy, the groups that
 * make operators and admins, the origins allowed to send mutating requests,
 * the session and refresh lifetimes and the directory of the built pages.
 * The cross-checks run after every key parsed on its own.
 */
import { isIP } from "node:net";
import { TENANT_PATTERN } from "../domain/limits.ts";
import { SYSTEM_TENANT } from "../engine/coordination/api-keys.ts";
import { ConfigError, InvalidValue } from "./config-error.ts";
import type { TaskflowConfig } from "./config.ts";
import { parseApiKeys, parseIds, parseWholeMs } from "./parse-values.ts";

/** An HTTP header field name (RFC 9110 token), e.g. X-Forwarded-User. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

function list(value: unknown): string[] {
  const items = typeof value === "string" ? value.split(",") : value;
  if (!Array.isArray(items) || !items.every((i) => typeof i === "string")) {
    throw new InvalidValue("must be a comma-separated string or an array of strings");
  }
  return [...new Set(items.map((s) => s.trim()).filter((s) => s !== ""))];
}

const nothing = (value: unknown) =>
  value === null || (typeof value === "string" && value.trim() === "");

/** null or "": the Console calls the engine with the first of WF_API_KEYS. Never echoed. */
export function parseConsoleApiKey(value: unknown): string | null {
  if (nothing(value)) return null;
  const keys = parseApiKeys(value);
  if (keys.length !== 1) throw new InvalidValue("must be one key (no commas)");
  return keys[0] ?? null;
}

/** null or "": trusted-header login is off. Otherwise the header's name, kept lower case. */
export function parseTrustedHeader(value: unknown): string | null {
  if (nothing(value)) return null;
  if (typeof value !== "string" || !HEADER_NAME.test(value.trim())) {
    throw new InvalidValue("must be an HTTP header name, e.g. X-Forwarded-User");
  }
  return value.trim().toLowerCase();
}

/** IP addresses and CIDR blocks (10.0.0.0/8, ::1, fd00::/8); each is checked here. */
export function parseTrustedProxies(value: unknown): string[] {
  const items = list(value);
  for (const item of items) {
    const [address = "", prefix, extra] = item.split("/");
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const bits = prefix === undefined ? max : /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : -1;
    if (family === 0 || extra !== undefined || bits < 0 || bits > max) {
      throw new InvalidValue(`${JSON.stringify(item.slice(0, 60))} is not an IP address or CIDR`);
    }
  }
  return items;
}

export const parseConsoleGroups = (value: unknown): string[] => parseIds(value);

/** Scheme, host and port only, as browsers send Origin: https://console.example.com. */
export function parseOrigins(value: unknown): string[] {
  return list(value).map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.origin !== item) {
      throw new InvalidValue(
        `${JSON.stringify(item.slice(0, 80))} is not an origin (scheme://host[:port], no path)`,
      );
    }
    return item;
  });
}

/** A minute to a day: shorter makes the page refresh constantly, longer defeats revocation. */
export const parseSessionTtl = (value: unknown) => parseWholeMs(value, MINUTE_MS, 24 * HOUR_MS);
/** Five minutes to 30 days. */
export const parseRefreshTtl = (value: unknown) =>
  parseWholeMs(value, 5 * MINUTE_MS, 30 * 24 * HOUR_MS);

/** null or "": no built pages served (the API alone). */
export function parseStaticDir(value: unknown): string | null {
  if (nothing(value)) return null;
  if (typeof value !== "string") throw new InvalidValue("must be a directory path");
  return value.trim();
}

const TENANT = new RegExp(TENANT_PATTERN);

/** A tenant id as X-Tenant-Id takes it; "" or null: the default tenant. */
export function parseConsoleTenant(value: unknown): string {
  if (nothing(value)) return "default";
  const tenant = typeof value === "string" ? value.trim() : "";
  if (!TENANT.test(tenant)) {
    throw new InvalidValue("must be a tenant id: 1–64 letters, digits, '.', '_' or '-'");
  }
  if (tenant === SYSTEM_TENANT) {
    throw new InvalidValue(`${SYSTEM_TENANT} holds the engine's own records (stored keys, locks)`);
  }
  return tenant;
}

/** The checks between settings, after each parsed on its own. */
export function assertConsoleSettings(
  c: Pick<
    TaskflowConfig,
    "consoleTrustedHeader" | "consoleTrustedProxies" | "consoleSessionTtl" | "consoleRefreshTtl"
  >,
): void {
  const issues: string[] = [];
  if (c.consoleTrustedHeader !== null && c.consoleTrustedProxies.length === 0) {
    issues.push(
      "WF_CONSOLE_TRUSTED_HEADER is set but WF_CONSOLE_TRUSTED_PROXIES is empty: " +
        "name the proxies (IPs or CIDRs) allowed to set the header",
    );
  }
  // Proxies alone are fine: their X-Forwarded-For names the client the login budgets count.
  if (c.consoleRefreshTtl < c.consoleSessionTtl) {
    issues.push(
      `WF_CONSOLE_REFRESH_TTL (${c.consoleRefreshTtl} ms) is shorter than ` +
        `WF_CONSOLE_SESSION_TTL (${c.consoleSessionTtl} ms): a session could outlive its login`,
    );
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
