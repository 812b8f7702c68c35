import type { Layer } from "./layers.ts";
import { settingsOf } from "./layers.ts";

export const DEFAULT_ADDR = ":8081";
export const DEFAULT_DATABASE_URL = "sqlite:./taskflow.db";
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/**
 * Off: the only client is the operator's own backend (BFF) holding the key, a
 * per-process budget multiplies with the number of nodes, and any fixed number
 * would be wrong for some host (and would throttle `npm run bench`). Operators
 * turn it on deliberately with WF_RATE_LIMIT.
 */
export const DEFAULT_RATE_LIMIT = "off";

/**
 * The first layer. nodeEnv defaults to production: the CLI treats an unset
 * NODE_ENV as production so that a forgotten variable fails closed (keys required);
 * `npm start` sets development explicitly.
 */
export function defaultsLayer(): Layer {
  return settingsOf("defaults", {
    addr: DEFAULT_ADDR,
    databaseUrl: "",
    users: [],
    groups: {},
    apiKeys: [],
    nodeEnv: "production",
    bodyLimit: DEFAULT_BODY_LIMIT,
    logLevel: "info",
    rateLimit: DEFAULT_RATE_LIMIT,
    exposeErrorStacks: false,
  });
}
