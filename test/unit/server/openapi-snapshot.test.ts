/**
 * The OpenAPI document is part of the public interface (clients are generated
 * from it): any change to it, even a moved description, shows here as a diff
 * against openapi-snapshot.json. The server is built with every optional route
 * family (runs, definition versions, hooks, cache admin, stored keys), each a
 * stub that is never called — the document depends on the schemas only.
 *
 * A deliberate change rewrites the snapshot:
 *   WF_UPDATE_OPENAPI_SNAPSHOT=1 node --import tsx --test test/unit/server/openapi-snapshot.test.ts
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import type { CacheLedger } from "../../../src/engine/definition-cache/cache-ledger-port.ts";
import type { DefinitionRuns } from "../../../src/engine/definitions/definition-runs.ts";
import type { DefinitionVersions } from "../../../src/engine/definitions/definition-versions.ts";
import type { TriggerRoutes } from "../../../src/engine/definitions/triggers/trigger-routes.ts";
import type { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { stubEngine, testConfig } from "./stub-engine.ts";
import type { Directory } from "../../../src/engine/directory-port.ts";

const SNAPSHOT = new URL("openapi-snapshot.json", import.meta.url);

/** The package version is in `info.version`; a release must not read as an API change. */
const VERSION = "<package version>";

async function document(): Promise<string> {
  const coordination = openCoordination({ kind: "memory", keyPrefix: "snapshot:" });
  const app = buildServer({
    engine: stubEngine(),
    config: testConfig(),
    runs: {} as DurableRuns,
    definitions: { prepare: () => undefined } as unknown as DefinitionVersions,
    definitionRuns: {} as DefinitionRuns,
    triggerRoutes: {} as TriggerRoutes,
    cacheLedger: {} as CacheLedger,
    coordination,
    directory: {} as Directory,
  });
  try {
    await app.ready();
    const doc = (await app.inject({ url: "/openapi.json" })).json<{ info: { version: string } }>();
    doc.info.version = VERSION;
    return `${JSON.stringify(doc, null, 2)}\n`;
  } finally {
    await app.close();
    await coordination.close();
  }
}

void test("GET /openapi.json is the committed snapshot, byte for byte", async () => {
  const now = await document();
  if (process.env.WF_UPDATE_OPENAPI_SNAPSHOT === "1") writeFileSync(SNAPSHOT, now);
  assert.equal(now, readFileSync(SNAPSHOT, "utf8"));
});
