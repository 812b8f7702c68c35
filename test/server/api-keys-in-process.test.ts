/**
 * Stored API keys through createTaskflow, on every deployment of
 * test/support/deployment.ts: one SQLite node with WF_COORDINATION=memory (the
 * keys in the process's memory), two MariaDB nodes on sql coordination, the
 * same two on Redis. The start rule, a key made through taskflow.coordination
 * of one node and used on every node, tenant scope, and a clean close with the
 * background jobs running.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../src/config/config-error.ts";
import type { ConfigOverrides } from "../../src/config/config.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";
import { deployments, type DeploymentKind } from "../support/deployment.ts";

const ENV_KEY = "env-key-0123456789abcdefghijkl";

/** Production; on the one SQLite node the keys live in memory (the two-node bases set their own). */
const start = (kind: DeploymentKind, overrides: ConfigOverrides) =>
  kind.start(
    {
      nodeEnv: "production",
      coordination: "memory",
      logLevel: "silent",
      ...overrides,
    },
    {},
    { requireApiKeys: false },
  );

for (const kind of deployments) {
  void describe(`stored API keys in process on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }

    void test("production, no WF_API_KEYS, no stored key: createTaskflow refuses, naming both ways out", async () => {
      await assert.rejects(start(kind, { apiKeys: [] }), (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.match(e.message, /WF_API_KEYS is empty and no live API key is stored/);
        assert.match(e.message, /taskflow keys create/);
        return true;
      });
    });

    void test("a key stored through taskflow.coordination works beside WF_API_KEYS, within its tenant, on every node", async () => {
      const deployment = await start(kind, { apiKeys: [ENV_KEY] });
      try {
        const keys = new ApiKeys(deployment.nodes[0]!.coordination);
        const acme = await keys.create({ name: "acme", tenant: "acme" });
        const get = (key: string, tenant?: string) =>
          deployment.inject({
            url: "/v1/definitions",
            headers: {
              "x-api-key": key,
              ...(tenant === undefined ? {} : { "x-tenant-id": tenant }),
            },
          });
        const first = await get(ENV_KEY);
        assert.equal(first.statusCode, 200, first.body);
        // Round-robin: the stored key is asked of each node at least once.
        for (const r of [
          await get(ENV_KEY, "acme"),
          await get(acme.key, "acme"),
          await get(acme.key, "acme"),
        ]) {
          assert.equal(r.statusCode, 200, r.body);
        }
        for (const r of [await get(acme.key, "globex"), await get(acme.key, "globex")]) {
          assert.equal(r.statusCode, 403);
          assert.equal(r.json<{ code: string }>().code, "Forbidden");
        }
        assert.equal((await get(`tfk_${"z".repeat(43)}`)).statusCode, 401);
      } finally {
        await deployment.close();
      }
    });
  });
}
