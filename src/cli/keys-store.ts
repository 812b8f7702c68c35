/**
 * Where the `keys` commands keep API keys, in words for their output: which
 * backend, which database or server, never a password. With DATABASE_URL unset
 * the store is the default SQLite file, which is easy to hit by mistake (a
 * shell without the deployment's environment), so the words say so.
 */
import type { TaskflowConfig } from "../config/config.ts";
import { sourceOf } from "../config/config-sources.ts";
import { DEFAULT_DATABASE_URL, DEFAULT_KEY_PREFIX } from "../config/defaults.ts";
import { databaseFileOf, redactUrl, sqlitePathOf } from "../composition/database-url.ts";

export function keysStore(config: TaskflowConfig): string {
  const prefix =
    config.keyPrefix === DEFAULT_KEY_PREFIX ? "" : ` (key prefix '${config.keyPrefix}')`;
  if (config.coordination === "redis") {
    const hosts = config.redisSentinels.map((s) => `${s.host}:${s.port}`).join(",");
    const where =
      config.redisUrl !== null
        ? redactUrl(config.redisUrl)
        : `master '${config.redisSentinelName ?? ""}' of the sentinels ${hosts}`;
    return `Redis ${where} (WF_COORDINATION=redis)${prefix}`;
  }
  const url = config.databaseUrl.trim();
  const source = sourceOf(config, "databaseUrl");
  if (url === "" || (source?.layer === "defaults" && url === DEFAULT_DATABASE_URL)) {
    const path = sqlitePathOf(url);
    return `the SQLite file ${path} (DATABASE_URL is unset; set it to the deployment's database)${prefix}`;
  }
  // Named as the operator wrote it: DATABASE_URL, or the config file's key.
  const name =
    source === undefined || source.layer === "environment"
      ? "DATABASE_URL"
      : `${source.layer} ${source.name}`;
  return `${name} ${redactUrl(url)}${prefix}`;
}

/**
 * The SQLite file the keys would be read from when it does not exist (then
 * there is nothing to list, revoke or rotate, and no reason to create it);
 * null otherwise.
 */
export function missingSqliteFile(
  config: Pick<TaskflowConfig, "coordination" | "databaseUrl">,
  exists: (path: string) => boolean,
): string | null {
  if (config.coordination !== "sql") return null;
  const path = databaseFileOf(config.databaseUrl);
  return path === null || path === ":memory:" || exists(path) ? null : path;
}
