/**
 * The Console in the engine's own process (`taskflow serve --console`): the
 * plugin on the same Fastify app, calling the engine over the server's own
 * loopback address with the key console-start.ts chose. Going through HTTP,
 * not in-process calls, keeps one path for every engine request: the key
 * check, rate limits, load shedding and idempotency apply to the Console too.
 */
import type { FastifyInstance } from "fastify";
import type { TaskflowConfig } from "../config/config.ts";
import type { Coordination } from "../engine/coordination/coordination.ts";
import type { Directory } from "../engine/ports.ts";
import type { CodeSender } from "./code-sender.ts";
import { CONSOLE_PREFIX, consolePlugin } from "./console-plugin.ts";
import { codeLoginMode, consoleEngineKey, loopbackUrl } from "./console-start.ts";

export interface ConsoleOptions {
  /** Delivers login codes; required outside development unless a trusted proxy logs people in. */
  codeSender?: CodeSender | undefined;
}

export interface ConsoleHost {
  config: TaskflowConfig;
  coordination: Coordination;
  directory: Directory;
}

/** Throws a ConfigError now (before any I/O) when the Console could not work. */
export function mountConsole(
  server: FastifyInstance,
  host: ConsoleHost,
  options: ConsoleOptions,
): void {
  codeLoginMode(host.config, options.codeSender);
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
}
