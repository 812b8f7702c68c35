/**
 * The Console's routes (/console/…) are its own pages' API — a session
 * cookie, an Origin check, no X-API-Key — not the engine's REST contract, so
 * /openapi.json leaves them out (issue 21, item 26: they were listed under
 * "default" with only a 200 and the x-api-key security they do not use). The
 * engine's routes stay documented as before.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { mountConsole } from "../../../src/console/mount-console.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { stubEngine, testConfig } from "../server/stub-engine.ts";

void test("/openapi.json: no /console route, every operation tagged; the Console still serves", async () => {
  const config = testConfig({ nodeEnv: "development", consoleApiKey: null });
  const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
  const directory = createDirectory(config);
  const app = buildServer({ engine: stubEngine(), config, coordination, directory });
  mountConsole(app, { config, coordination, directory }, {});
  await app.ready();
  try {
    const doc = (await app.inject({ url: "/openapi.json" })).json<{
      paths: Record<string, Record<string, { tags?: string[] }>>;
    }>();
    const paths = Object.keys(doc.paths);
    assert.deepEqual(
      paths.filter((p) => p.startsWith("/console")),
      [],
      "Console routes in the document",
    );
    assert.ok(paths.includes("/v1/tasks"), "the engine's routes are documented");
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        assert.ok((op.tags ?? []).length > 0, `${method.toUpperCase()} ${path} under "default"`);
      }
    }
    // Hidden from the document, not from the browser.
    const session = await app.inject({ url: "/console/api/session" });
    assert.equal(session.statusCode, 401, session.body);
  } finally {
    await app.close();
    await coordination.close();
  }
});
