/**
 * Stored API keys through createTaskflow with WF_COORDINATION=memory (a real
 * SQLite store, the keys in the process's memory): the start rule, a key made
 * through taskflow.coordination, tenant scope, and a clean close with the
 * background jobs running.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ConfigError } from "../../src/config/config-error.ts";
import type { ConfigOverrides } from "../../src/config/config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/create-taskflow.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";

const dir = await mkdtemp(join(tmpdir(), "tf-keys-"));
after(() => rm(dir, { recursive: true, force: true }));
const ENV_KEY = "env-key-0123456789abcdefghijkl";

function config(overrides: ConfigOverrides) {
  return loadConfig({
    env: {},
    requireApiKeys: false,
    overrides: {
      databaseUrl: `sqlite:${join(dir, "keys.db")}`,
      nodeEnv: "production",
      coordination: "memory",
      logLevel: "silent",
      // Shedding has its own tests; on a loaded machine it must not answer these requests.
      maxEventLoopDelay: 0,
      ...overrides,
    },
  });
}

void test("production, no WF_API_KEYS, no stored key: createTaskflow refuses, naming both ways out", async () => {
  await assert.rejects(createTaskflow(config({ apiKeys: [] })), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.match(e.message, /WF_API_KEYS is empty and no live API key is stored/);
    assert.match(e.message, /taskflow keys create/);
    return true;
  });
});

void test("a key stored through taskflow.coordination works beside WF_API_KEYS, within its tenant", async () => {
  const tf = await createTaskflow(config({ apiKeys: [ENV_KEY] }));
  try {
    const keys = new ApiKeys(tf.coordination);
    const acme = await keys.create({ name: "acme", tenant: "acme" });
    const get = (key: string, tenant?: string) =>
      tf.server.inject({
        url: "/v1/definitions",
        headers: { "x-api-key": key, ...(tenant === undefined ? {} : { "x-tenant-id": tenant }) },
      });
    const first = await get(ENV_KEY);
    assert.equal(first.statusCode, 200, first.body);
    for (const r of [await get(ENV_KEY, "acme"), await get(acme.key, "acme")]) {
      assert.equal(r.statusCode, 200, r.body);
    }
    const other = await get(acme.key, "globex");
    assert.equal(other.statusCode, 403);
    assert.equal(other.json().code, "Forbidden");
    assert.equal((await get(`tfk_${"z".repeat(43)}`)).statusCode, 401);
  } finally {
    await tf.close();
  }
});
