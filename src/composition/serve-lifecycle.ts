/**
 * What `taskflow serve` and `taskflow worker` need from the server and the
 * Console around a started node: closing on SIGTERM/SIGINT, and whether the
 * Console it mounted can be logged in to. Here so the CLI imports neither
 * src/server nor src/console (eslint.config.js, the src/cli block).
 */
import { canLogIn, loginMethods } from "../console/console-start.ts";

export { closeOnSignals, type ShutdownLog } from "../server/lifecycle/graceful-shutdown.ts";

/**
 * Whether a Console mounted from this config has a login. The CLI passes no
 * CodeSender, so neither does this: mountConsole decides the same, and logged
 * why when off.
 */
export function consoleCanLogIn(config: Parameters<typeof loginMethods>[0]): boolean {
  return canLogIn(loginMethods(config, undefined));
}
