/**
 * The OpenAPI document is part of the public interface (clients are generated
 * from it): any change to it, even a moved description, shows here as a diff
 * against openapi-snapshot.json. The server is built with every optional route
 * family (runs, definition versions, hooks, cache admin, stored keys), each a
 * stub that is never called — the document depends on the schemas only.
 *
 * The snapshot is the document's SHA-256 and length, not the ~1 MB document
 * itself (every route's problem schema lists its reasons); on a mismatch the
 * test writes the document it got to a temporary file, to diff against the
 * same file written on the previous commit.
 *
 * A deliberate change rewrites the snapshot:
 *   WF_UPDATE_OPENAPI_SNAPSHOT=1 node --import tsx --test test/unit/server/openapi-snapshot.test.ts
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { everyRouteFamily, stubEngine, testConfig } from "./stub-engine.ts";
import type { Directory } from "../../../src/engine/directory-port.ts";

const SNAPSHOT = new URL("openapi-snapshot.sha256", import.meta.url);

/** The package version is in `info.version`; a release must not read as an API change. */
const VERSION = "<package version>";

async function document(): Promise<string> {
  const coordination = openCoordination({ kind: "memory", keyPrefix: "snapshot:" });
  const app = buildServer({
    engine: stubEngine(),
    config: testConfig(),
    ...everyRouteFamily(),
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

/** `<sha256 hex> <bytes>`: equal digests and lengths mean the same bytes. */
const fingerprint = (doc: string) =>
  `${createHash("sha256").update(doc).digest("hex")} ${Buffer.byteLength(doc)}\n`;

void test("GET /openapi.json is the committed snapshot, byte for byte", async () => {
  const now = await document();
  if (process.env.WF_UPDATE_OPENAPI_SNAPSHOT === "1") writeFileSync(SNAPSHOT, fingerprint(now));
  const expected = readFileSync(SNAPSHOT, "utf8");
  if (fingerprint(now) !== expected) {
    const written = join(tmpdir(), `taskflow-openapi-${process.pid}.json`);
    writeFileSync(written, now);
    assert.fail(
      `the OpenAPI document changed (now ${fingerprint(now).trim()}, snapshot ${expected.trim()}); ` +
        `it is in ${written}. If the change is deliberate: WF_UPDATE_OPENAPI_SNAPSHOT=1 node --import tsx --test ${"test/unit/server/openapi-snapshot.test.ts"}`,
    );
  }
});
