import type { Layer } from "./layers.ts";
import { settingsOf } from "./layers.ts";

export const DEFAULT_ADDR = ":8081";
export const DEFAULT_DATABASE_URL = "sqlite:./taskflow.db";
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

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
  });
}
