/** A fresh test database with the human-task inbox, the run store and the ctx.humanTask bridge. */
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { humanTaskBridge } from "../../../src/engine/durable/human-task-bridge.ts";
import type { HumanTaskApi } from "../../../src/engine/human-tasks/human-task-api.ts";
import { HumanTaskEngine } from "../../../src/engine/human-tasks/human-task-engine.ts";
import { createTestDatabase, type Backend } from "../../support/backends.ts";

/** A fresh database of `b` with the inbox, the run store and the bridge (engine wrappable). */
export async function inboxOn(b: Backend, wrap: (e: HumanTaskApi) => HumanTaskApi = (e) => e) {
  const db = await createTestDatabase(b);
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: ["k-0123456789abcdefghijkl"], logLevel: "silent" },
  });
  const database = openDatabase(config.databaseUrl);
  await database.migrate();
  const store = database.tasks;
  const engine = new HumanTaskEngine({ store, directory: createDirectory(config) });
  const runs = database.runs;
  const bridge = humanTaskBridge(store, wrap(engine));
  return {
    store,
    engine,
    runs,
    bridge,
    close: async () => {
      await database.close();
      await db.drop();
    },
  };
}
