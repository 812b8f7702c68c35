/**
 * The Console in the engine's own process (`taskflow serve --console`): the
 * plugin on the same Fastify app, calling the engine over the server's own
 * loopback address with the key console-start.ts chose. Going through HTTP,
 * not in-process calls, keeps one path for every engine request: the key
 * check, rate limits, load shedding and idempotency apply to the Console too.
 */
import type { FastifyInstance } from "fastify";
import type { TaskflowConfig } from "../config/config.ts";
import type { Coordination, Directory } from "../engine/index.ts";
import type { ConsoleOptions } from "./console-options.ts";
import { CONSOLE_PREFIX, consolePlugin } from "./console-plugin.ts";
import {
  canLogIn,
  consoleEngineKey,
  loginMethods,
  loopbackUrl,
  noLoginMessage,
} from "./console-start.ts";

export type { ConsoleOptions } from "./console-options.ts";

export interface ConsoleHost {
  config: TaskflowConfig;
  coordination: Coordination;
  directory: Directory;
}

/**
 * Throws a ConfigError now (before any I/O) when the Console could not work.
 * A Console with no way to log in is not mounted: the API is served without
 * it, and one warning says how to turn it on (the production start of
 * `npm start` is `serve --console`, which must serve the API it promises).
 * false: not mounted.
 */
export function mountConsole(
  server: FastifyInstance,
  host: ConsoleHost,
  options: ConsoleOptions,
): boolean {
  if (!canLogIn(loginMethods(host.config, options.codeSender))) {
    server.log.warn(`console: off: ${noLoginMessage(host.config)}`);
    return false;
  }
  const apiKey = consoleEngineKey(host.config);
  void server.register(consolePlugin, {
    prefix: CONSOLE_PREFIX,
    ...host,
    engine: {
      baseUrl: () => loopbackUrl(server.server.address()),
      apiKey,
      tenantId: host.config.consoleTenant,
    },
    codeSender: options.codeSender,
  });
  return true;
}
