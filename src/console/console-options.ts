/**
 * What a host passes to createTaskflow's `console` option. Apart from
 * mount-console.ts so that the package's published types (TaskflowOptions)
 * reach this and not the Fastify plugin that mounts the Console.
 */
import type { CodeSender } from "./code-sender.ts";

export interface ConsoleOptions {
  /** Delivers login codes; outside development the only code login (OpenID Connect and a trusted proxy need none). */
  codeSender?: CodeSender | undefined;
}
