/**
 * The store a CLI command works on (`cache`, `keys`, `definitions`): opened
 * from the config, migrated, handed to the command typed by what it needs, and
 * closed again. The CLI never picks an adapter itself; this file, part of the
 * composition root, does it for it (eslint.config.js, the src/cli block).
 *
 * Each command works on the database like `migrate`: no HTTP, no API key, and
 * the tables it reads come with the migrations, so a fresh database gets them
 * here.
 */
import type { TaskflowConfig } from "../config/config.ts";
import { openDatabase } from "../adapters/store/open-database.ts";
import { coordinationFor } from "./coordination-for.ts";
import { definitionCacheFor } from "./definition-cache-for.ts";
import { ApiKeys } from "../engine/coordination/api-keys.ts";
import type { CacheLedger } from "../engine/definition-cache/cache-ledger-port.ts";
import { DefinitionVersions } from "../engine/definitions/definition-versions.ts";
import { ServedCodeNames } from "../engine/durable/served-code-names.ts";

export type { ApiKeyInfo, ApiKeyListing } from "../engine/coordination/api-keys.ts";
export type {
  CacheLedger,
  IncompleteMutation,
} from "../engine/definition-cache/cache-ledger-port.ts";
export type { VersionSelector } from "../engine/definitions/definition-versions.ts";

/** What `taskflow keys` does with stored keys. */
export type CliApiKeys = Pick<ApiKeys, "create" | "list" | "revoke" | "rotate">;
/** What `taskflow definitions` does with stored versions. */
export type CliDefinitionVersions = Pick<DefinitionVersions, "publish" | "diff">;

type StoreConfig = Pick<TaskflowConfig, "databaseUrl" | "sqliteSynchronous">;

function open(config: StoreConfig) {
  return openDatabase(config.databaseUrl, { sqliteSynchronous: config.sqliteSynchronous });
}

/** The definition cache's consistency ledger in DATABASE_URL. */
export async function withCacheLedger<T>(
  config: StoreConfig,
  fn: (ledger: CacheLedger) => Promise<T>,
): Promise<T> {
  const database = open(config);
  try {
    await database.migrate();
    return await fn(database.cacheLedger);
  } finally {
    await database.close();
  }
}

/** The API keys of the configured coordination (WF_COORDINATION sql or redis). */
export async function withApiKeys<T>(
  config: TaskflowConfig,
  fn: (keys: CliApiKeys) => Promise<T>,
): Promise<T> {
  const database = open(config);
  const coordination = coordinationFor(config, database);
  try {
    await database.migrate();
    return await fn(new ApiKeys(coordination));
  } finally {
    await coordination.close().catch(() => undefined);
    await database.close();
  }
}

/**
 * The definition versions in DATABASE_URL, through a node's path: a publish
 * takes the definition's lock, a fence before the write and its completion
 * after. Straight to the store, running nodes kept serving the versions they
 * had cached (up to WF_DEFINITION_CACHE_ABSOLUTE, an hour by default).
 */
export async function withDefinitionVersions<T>(
  config: TaskflowConfig,
  warn: (message: string) => void,
  fn: (versions: CliDefinitionVersions) => Promise<T>,
): Promise<T> {
  const database = open(config);
  const coordination = coordinationFor(config, database);
  const cache = definitionCacheFor(config, database, coordination, {
    log: { warn: (_fields, message) => warn(message) },
  });
  try {
    await database.migrate();
    // What workers recorded serving (the CLI itself registers no steps or workflows).
    const code = new ServedCodeNames(database.runs, () => []);
    return await fn(new DefinitionVersions(cache.store, undefined, code));
  } finally {
    await cache.manager.close().catch(() => undefined);
    await coordination.close().catch(() => undefined);
    await database.close();
  }
}
