/**
 * The Console's OpenID Connect login (docs/console.md): the provider's issuer,
 * this client's id and secret at it, the callback address the provider sends
 * the browser back to, the claim that names the directory user and the scopes
 * to ask for. Each is parsed on its own; the checks between them follow.
 */
import { ConfigError, InvalidValue } from "./config-error.ts";
import type { TaskflowConfig } from "./config.ts";

/** Where the provider sends the browser back: the Console's callback route. */
export const OIDC_CALLBACK_PATH = "/console/api/auth/oidc/callback";
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);
const CLAIM = /^[A-Za-z0-9_.:-]{1,64}$/;
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

const nothing = (value: unknown) =>
  value === null || (typeof value === "string" && value.trim() === "");

/** https, or http on a loopback host only (a provider on the same machine, a test). */
function secureUrl(value: unknown, what: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === "string" ? new URL(value.trim()) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined) throw new InvalidValue(`must be ${what}, an absolute https URL`);
  const plain = url.protocol === "http:" && LOOPBACK.has(url.hostname);
  if (url.protocol !== "https:" && !plain) {
    throw new InvalidValue(`must be https (http only on localhost, 127.0.0.1 or [::1])`);
  }
  if (url.username !== "" || url.password !== "" || url.hash !== "") {
    throw new InvalidValue("must have no credentials and no #fragment");
  }
  return url;
}

/** null or "": OpenID Connect login is off. Otherwise the issuer identifier, as discovery takes it. */
export function parseOidcIssuer(value: unknown): string | null {
  if (nothing(value)) return null;
  const url = secureUrl(value, "the provider's issuer");
  if (url.search !== "") throw new InvalidValue("an issuer has no ?query");
  // As written: the provider's metadata must name the same issuer, exactly.
  return (value as string).trim();
}

/** null or "": unset. The client id or secret as the provider issued it; never echoed. */
export function parseOidcClientText(value: unknown): string | null {
  if (nothing(value)) return null;
  if (typeof value !== "string" || value.trim().length > 512) {
    throw new InvalidValue("must be a string of at most 512 characters");
  }
  return value.trim();
}

/** The absolute address of the Console's callback as the browser reaches it (behind a proxy too). */
export function parseOidcRedirectUrl(value: unknown): string | null {
  if (nothing(value)) return null;
  const url = secureUrl(value, "the Console's callback address");
  if (!url.pathname.endsWith(OIDC_CALLBACK_PATH) || url.search !== "") {
    throw new InvalidValue(
      `must be the Console's callback, e.g. https://console.example.com${OIDC_CALLBACK_PATH}`,
    );
  }
  return url.href;
}

/** The ID token claim that is the directory's user id: sub unless told (preferred_username, email). */
export function parseOidcUserClaim(value: unknown): string {
  if (nothing(value)) return "sub";
  const claim = typeof value === "string" ? value.trim() : "";
  if (!CLAIM.test(claim)) throw new InvalidValue("must be a claim name, e.g. preferred_username");
  return claim;
}

/** Space- or comma-separated scopes; openid is always asked for. */
export function parseOidcScopes(value: unknown): string[] {
  const items = nothing(value)
    ? []
    : typeof value === "string"
      ? value.split(/[\s,]+/)
      : Array.isArray(value) && value.every((s) => typeof s === "string")
        ? value
        : null;
  if (items === null) throw new InvalidValue("must be a space-separated string or a list");
  const scopes = [...new Set(["openid", ...items.map((s) => s.trim()).filter((s) => s !== "")])];
  const bad = scopes.find((s) => !SCOPE.test(s));
  if (bad !== undefined)
    throw new InvalidValue(`${JSON.stringify(bad.slice(0, 60))} is not a scope`);
  return scopes;
}

/** The checks between the OpenID Connect settings. */
export function assertOidcSettings(
  c: Pick<
    TaskflowConfig,
    | "consoleOidcIssuer"
    | "consoleOidcClientId"
    | "consoleOidcClientSecret"
    | "consoleOidcRedirectUrl"
  >,
): void {
  const issues: string[] = [];
  if (c.consoleOidcIssuer !== null) {
    if (c.consoleOidcClientId === null) {
      issues.push(
        "WF_CONSOLE_OIDC_ISSUER is set but WF_CONSOLE_OIDC_CLIENT_ID is not: " +
          "set the client id the provider registered for the Console",
      );
    }
    if (c.consoleOidcRedirectUrl === null) {
      issues.push(
        "WF_CONSOLE_OIDC_ISSUER is set but WF_CONSOLE_OIDC_REDIRECT_URL is not: set the " +
          `callback address registered at the provider (https://<console host>${OIDC_CALLBACK_PATH})`,
      );
    }
  } else {
    const stray = (
      [
        ["WF_CONSOLE_OIDC_CLIENT_ID", c.consoleOidcClientId],
        ["WF_CONSOLE_OIDC_CLIENT_SECRET", c.consoleOidcClientSecret],
        ["WF_CONSOLE_OIDC_REDIRECT_URL", c.consoleOidcRedirectUrl],
      ] as const
    ).filter(([, v]) => v !== null);
    if (stray.length > 0) {
      issues.push(
        `${stray.map(([k]) => k).join(", ")} set but WF_CONSOLE_OIDC_ISSUER is not: ` +
          "set the provider's issuer or clear them",
      );
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
}
