/**
 * A fresh database with the inbox, the versions store and the interpreter
 * registered in a Harness (runs driven by hand, with a settable clock).
 */
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { openDatabase } from "../../../src/adapters/store/open-database.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { DefinitionVersions } from "../../../src/engine/definitions/definition-versions.ts";
import { DefinitionCache } from "../../../src/engine/definitions/interpreter/definition-cache.ts";
import { InterpretedDefinitionRuns } from "../../../src/engine/definitions/interpreter/interpreted-runs.ts";
import { definitionRunWorkflow } from "../../../src/engine/definitions/interpreter/interpreter.ts";
import { ResponseWaiters } from "../../../src/engine/definitions/interpreter/response-waiters.ts";
import { DEFINITION_RUN } from "../../../src/engine/definitions/interpreter/run-input.ts";
import {
  humanTaskBridge,
  wakeRunsOnCompletion,
} from "../../../src/engine/durable/human-task-bridge.ts";
import { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import type { AnyWorkflowDefinition } from "../../../src/engine/durable/types.ts";
import { HumanTaskEngine } from "../../../src/engine/human-tasks/human-task-engine.ts";
import type { Vars } from "../../../src/domain/vars.ts";
import { createTestDatabase, type Backend } from "../../support/backends.ts";
import { Clock, Harness } from "../../support/harness.ts";

export const TENANT = "t1";

export async function interpreterOn(b: Backend, workflows: AnyWorkflowDefinition[] = []) {
  const db = await createTestDatabase(b);
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: ["k-0123456789abcdefghijkl"], logLevel: "silent" },
  });
  const database = openDatabase(config.databaseUrl);
  await database.migrate();
  const store = database.tasks;
  const inbox = new HumanTaskEngine({ store, directory: createDirectory(config) });
  const engine = wakeRunsOnCompletion(inbox, store, database.runs);
  const responses = new ResponseWaiters();
  const cache = new DefinitionCache(database.definitions);
  const interpreter = definitionRunWorkflow({
    definitions: cache,
    runs: database.runs,
    responses,
  });
  const h = new Harness(database.runs, [interpreter, ...workflows], new Clock(Date.now()));
  h.contextOptions = { humanTasks: humanTaskBridge(store, inbox) };
  const node = new InterpretedDefinitionRuns(
    cache,
    new DurableRuns(database.runs, h.registry, undefined, h.clock.now),
    database.runs,
    responses,
  );
  const definitions = new DefinitionVersions(database.definitions);
  const actor = { tenantId: TENANT, actorId: "alice" };
  return {
    h,
    engine,
    store,
    runs: database.runs,
    database,
    responses,
    /** Starts as this node's DefinitionRuns (its cache sees the publishes above). */
    node,
    /** Another node's view: its own waiters, reading answers from the history. */
    elsewhere: () =>
      new InterpretedDefinitionRuns(
        new DefinitionCache(database.definitions),
        new DurableRuns(database.runs, h.registry, undefined, h.clock.now),
        database.runs,
        new ResponseWaiters(),
      ),
    publish: async (doc: Record<string, unknown>) =>
      (await definitions.publish(actor, String(doc["key"]), doc)).version,
    start: (key: string, version: number, vars: Vars, id: string) =>
      h.start(DEFINITION_RUN, { key, version, vars }, id, TENANT),
    run: async (id: string) => (await database.runs.getRun(TENANT, id))!,
    openTasks: async (user: string) =>
      (await inbox.userInbox({ tenantId: TENANT }, user, {})).items,
    complete: (user: string, taskId: string, vars: Vars) =>
      engine.complete({ tenantId: TENANT, actorId: user }, taskId, { vars }),
    close: async () => {
      await database.close();
      await db.drop();
    },
  };
}
