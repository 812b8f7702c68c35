/**
 * What the Console needs before it may start, checked once with the rest of
 * the configuration so a wrong deployment fails at start, naming the setting:
 * - a way to log in: a code login (the host's CodeSender; the log sender only
 *   in development), OpenID Connect (WF_CONSOLE_OIDC_ISSUER), or a trusted
 *   proxy that logs people in (WF_CONSOLE_TRUSTED_HEADER). With none, outside
 *   development, `serve --console` (npm start) serves the API without the
 *   Console and says in one log line how to turn it on (mount-console.ts);
 * - a key to call the engine with: WF_CONSOLE_API_KEY, else the first of
 *   WF_API_KEYS (none needed in development without keys).
 * And where the engine is when the Console runs in its process: the server's
 * own address, over loopback when it listens on every interface.
 */
import type { AddressInfo } from "node:net";
import { ConfigError } from "../config/config-error.ts";
import { isDevelopment, type TaskflowConfig } from "../config/config.ts";
import { MIN_API_KEY_LENGTH } from "../config/validate-config.ts";
import type { CodeSender } from "./code-sender.ts";

type StartConfig = Pick<
  TaskflowConfig,
  "nodeEnv" | "apiKeys" | "consoleApiKey" | "consoleTrustedHeader" | "consoleOidcIssuer"
>;

/** The code login: "host" (a sender given), "log" (development), "off". */
export type CodeLoginMode = "host" | "log" | "off";

/** The ways in a Console offers; the login page shows these and no other. */
export interface LoginMethods {
  code: CodeLoginMode;
  oidc: boolean;
  trustedHeader: boolean;
}

export function loginMethods(c: StartConfig, sender: CodeSender | undefined): LoginMethods {
  return {
    code: sender !== undefined ? "host" : isDevelopment(c) ? "log" : "off",
    oidc: c.consoleOidcIssuer !== null,
    trustedHeader: c.consoleTrustedHeader !== null,
  };
}

export const canLogIn = (m: LoginMethods): boolean => m.code !== "off" || m.oidc || m.trustedHeader;

/** Why a Console has no login, and how to give it one. */
export function noLoginMessage(c: Pick<TaskflowConfig, "nodeEnv">): string {
  return (
    `the Console has no login while NODE_ENV is ${JSON.stringify(c.nodeEnv)} (codes go to ` +
    `the log only with NODE_ENV=development): set WF_CONSOLE_OIDC_ISSUER, ` +
    `WF_CONSOLE_OIDC_CLIENT_ID and WF_CONSOLE_OIDC_REDIRECT_URL (OpenID Connect), or ` +
    `WF_CONSOLE_TRUSTED_HEADER and WF_CONSOLE_TRUSTED_PROXIES (an authenticating proxy), or ` +
    `pass a CodeSender (createTaskflow option console.codeSender)`
  );
}

/** For a host that registers the plugin itself: a Console nobody can log in to is an error. */
export function assertCanLogIn(c: StartConfig, sender: CodeSender | undefined): LoginMethods {
  const methods = loginMethods(c, sender);
  if (!canLogIn(methods)) throw new ConfigError([noLoginMessage(c)]);
  return methods;
}

/** The key the Console sends to the engine; null only in development without keys. */
export function consoleEngineKey(c: StartConfig): string | null {
  const key = c.consoleApiKey ?? c.apiKeys[0] ?? null;
  if (isDevelopment(c)) return key;
  if (key === null) {
    throw new ConfigError([
      `the Console needs an API key to call the engine while NODE_ENV is ` +
        `${JSON.stringify(c.nodeEnv)}: set WF_CONSOLE_API_KEY (a stored key from ` +
        `'taskflow keys create') or WF_API_KEYS`,
    ]);
  }
  if (c.consoleApiKey !== null && c.consoleApiKey.length < MIN_API_KEY_LENGTH) {
    throw new ConfigError([
      `WF_CONSOLE_API_KEY has ${c.consoleApiKey.length} characters; outside development a ` +
        `key needs at least ${MIN_API_KEY_LENGTH}`,
    ]);
  }
  return key;
}

/** http://host:port of a listening server; a wildcard address is reached over loopback. */
export function loopbackUrl(address: string | AddressInfo | null): string {
  if (address === null || typeof address === "string") {
    throw new Error("the Console's engine is this server, which is not listening on TCP yet");
  }
  const host =
    address.address === "0.0.0.0"
      ? "127.0.0.1"
      : address.address === "::"
        ? "::1"
        : address.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}
