/**
 * A writer that dies between its store write and its fence's completion, for
 * timeline-orphan-kill.test.ts, run as its own process:
 * `node --import tsx test/definition-cache/support/orphan-writer.ts '<json>'`
 * with { databaseUrl, tenantId, key, definition }.
 *
 * It opens the database as a node does (the definition cache of
 * definitionCacheFor, SQL coordination for the definition's lock), beats its
 * owner id and keeps beating (startOwnerHeartbeat), reads nothing, and
 * publishes `definition` through the cached store: lock, fence, store write.
 * The store under the cache is wrapped so that, once its publishVersion has
 * returned (the transaction committed), it prints
 * `{"committed":<version>,"owner":"<owner>"}` and never returns: the fence
 * stays open until the parent kills this process with kill -9.
 * Prints `{"error":"…"}` and exits 1 when it cannot get that far.
 */
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { coordinationFor } from "../../../src/composition/coordination-for.ts";
import { definitionCacheFor } from "../../../src/composition/definition-cache-for.ts";
import { ledgerOwner } from "../../../src/engine/definition-cache/ledger-owner.ts";
import { startOwnerHeartbeat } from "../../../src/engine/definition-cache/owner-heartbeat.ts";
import type {
  DefinitionVersionStore,
  PublishVersion,
} from "../../../src/engine/definitions/definition-version-store-port.ts";

interface WriterConfig {
  databaseUrl: string;
  tenantId: string;
  key: string;
  definition: Record<string, unknown>;
}

const input = JSON.parse(process.argv[2] ?? "{}") as WriterConfig;
const say = (message: object) => process.stdout.write(`${JSON.stringify(message)}\n`);
const owner = ledgerOwner();

/** The store, except that a publish hangs after its commit (the moment this process dies). */
function hangingAfterCommit(store: DefinitionVersionStore): DefinitionVersionStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "publishVersion") {
        return async (cmd: PublishVersion) => {
          const outcome = await target.publishVersion(cmd);
          say({ committed: outcome.published ? outcome.version : null, owner });
          // Never returns; the interval keeps the process alive until kill -9.
          return new Promise<never>(() => setInterval(() => undefined, 1000));
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });
}

try {
  const config = loadConfig({
    env: {},
    requireApiKeys: false,
    overrides: { databaseUrl: input.databaseUrl, coordination: "sql", redisUrl: null },
  });
  const database = openDatabase(config.databaseUrl);
  const coordination = coordinationFor(config, database);
  const log = { warn: (fields: Record<string, unknown>, m: string) => say({ warn: m, fields }) };
  const cache = definitionCacheFor(
    config,
    { ...database, definitions: hangingAfterCommit(database.definitions) },
    coordination,
    { log },
  );
  // Nothing to apply (the node migrated); reads the deployment id, as a node's start does.
  await database.migrate();
  await database.cacheLedger.beat(owner);
  startOwnerHeartbeat({
    ledger: database.cacheLedger,
    owner,
    onError: (e) => say({ warn: `beat failed: ${e.message}` }),
  });
  await cache.store.publishVersion({
    tenantId: input.tenantId,
    key: input.key,
    name: typeof input.definition["name"] === "string" ? input.definition["name"] : input.key,
    definition: input.definition,
    createdBy: "orphan-writer",
    at: Date.now(),
  });
  say({ error: "the publish returned; it should have hung after its commit" });
  process.exit(1);
} catch (e) {
  say({ error: e instanceof Error ? e.message : String(e) });
  process.exit(1);
}
