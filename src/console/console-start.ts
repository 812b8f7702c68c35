/**
 * What the Console needs before it may start, checked once with the rest of
 * the configuration so a wrong deployment fails at start, naming the setting:
 * - a way to deliver login codes: the host's CodeSender; the log sender only
 *   in development; or no code login at all when a trusted proxy logs people
 *   in (WF_CONSOLE_TRUSTED_HEADER);
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
  "nodeEnv" | "apiKeys" | "consoleApiKey" | "consoleTrustedHeader"
>;

/** The code-login choice: "host" (a sender given), "log" (development), "off" (SSO only). */
export type CodeLoginMode = "host" | "log" | "off";

export function codeLoginMode(c: StartConfig, sender: CodeSender | undefined): CodeLoginMode {
  if (sender !== undefined) return "host";
  if (isDevelopment(c)) return "log";
  if (c.consoleTrustedHeader !== null) return "off";
  throw new ConfigError([
    `the Console is enabled while NODE_ENV is ${JSON.stringify(c.nodeEnv)} without a login ` +
      `code sender (codes go to the log only with NODE_ENV=development): pass a CodeSender ` +
      `(createTaskflow option console.codeSender), or log people in through an ` +
      `authenticating proxy with WF_CONSOLE_TRUSTED_HEADER and WF_CONSOLE_TRUSTED_PROXIES`,
  ]);
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
