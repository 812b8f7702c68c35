/** GET /readyz over a real SQLite store: ready while the store answers, 503 once it cannot. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";

test("a real SQLite store is ready: /readyz checks it with a round trip", async () => {
  const dir = await mkdtemp(join(tmpdir(), "tf-ready-"));
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: `sqlite:${join(dir, "ready.db")}`,
      nodeEnv: "production",
      apiKeys: ["k-0123456789abcdefghijkl"],
      logLevel: "silent",
    },
  });
  const tf = await createTaskflow(config);
  try {
    const r = await tf.server.inject({ url: "/readyz" });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { status: "ok", checks: { store: "ok" } });
    await tf.store.close();
    const closed = await tf.server.inject({ url: "/readyz" });
    assert.equal(closed.statusCode, 503, "a store that cannot answer is not ready");
  } finally {
    await tf.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
});
