import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { loadConfig } from "../../../src/config/load-config.ts";
import { ConfigError } from "../../../src/config/config-error.ts";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { ApiKeys } from "../../../src/engine/coordination/api-keys.ts";
import { keyVerifier } from "../../../src/server/hooks/auth.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { KEY, sampleTask, stubEngine, stubServer } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

void describe("keyVerifier (constant-time compare over SHA-256 digests)", () => {
  const verify = keyVerifier(["alpha", "a-much-longer-second-key"]);
  void test("accepts every configured key and names it by its position", () => {
    assert.equal(verify("alpha"), "key#1");
    assert.equal(verify("a-much-longer-second-key"), "key#2");
  });
  void test("refuses others, including prefixes, extensions and case changes", () => {
    for (const bad of [undefined, "", "alph", "alphaa", "ALPHA", "a-much-longer-second-ke"]) {
      assert.equal(verify(bad), undefined, String(bad));
    }
  });
  void test("with no keys nothing matches", () => {
    assert.equal(keyVerifier([])("anything"), undefined);
  });
});

void describe("X-API-Key on the HTTP API", () => {
  let app: FastifyInstance;
  before(async () => {
    app = await stubServer({ getTask: () => Promise.resolve(sampleTask()) });
  });
  after(() => app.close());

  void test("missing or wrong key → 401 Unauthorized problem", async () => {
    for (const headers of [{}, { "x-api-key": "wrong" }, { "x-api-key": `${KEY}x` }]) {
      const r = await app.inject({ url: "/v1/tasks/t1", headers });
      assert.equal(r.statusCode, 401);
      assert.match(r.headers["content-type"] as string, /^application\/problem\+json/);
      assert.equal(r.json().code, "Unauthorized");
    }
  });

  void test("the key is checked before anything else (no 400 leaks through)", async () => {
    const r = await app.inject({ method: "POST", url: "/v1/processes", payload: "{bad" });
    assert.equal(r.statusCode, 401);
  });

  void test("a right key passes", async () => {
    const r = await app.inject({ url: "/v1/tasks/t1", headers: { "x-api-key": KEY } });
    assert.equal(r.statusCode, 200);
  });

  void test("/healthz, /openapi.json and /docs need no key", async () => {
    assert.equal((await app.inject({ url: "/healthz" })).statusCode, 200);
    assert.equal((await app.inject({ url: "/openapi.json" })).statusCode, 200);
    const docs = await app.inject({ url: "/docs" });
    assert.ok([200, 302].includes(docs.statusCode), `docs ${docs.statusCode}`);
  });
});

void describe("development without keys", () => {
  void test("no key is required", async () => {
    const app = await stubServer(
      { getTask: () => Promise.resolve(sampleTask()) },
      { overrides: { nodeEnv: "development", apiKeys: [] } },
    );
    assert.equal((await app.inject({ url: "/v1/tasks/t1" })).statusCode, 200);
    await app.close();
  });

  void test("a key that is sent is checked: no key 200, a stored key 200 within its tenant, a wrong key 401", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const config = loadConfig({
      env: {},
      overrides: { nodeEnv: "development", apiKeys: [], logLevel: "silent" },
    });
    const app = buildServer({
      engine: stubEngine({ getTask: () => Promise.resolve(sampleTask()) }),
      config,
      coordination,
      directory: serverAdapters(config).directory,
    });
    await app.ready();
    try {
      const acme = await new ApiKeys(coordination).create({ name: "acme", tenant: "acme" });
      const get = (headers: Record<string, string>) => app.inject({ url: "/v1/tasks/t1", headers });
      assert.equal((await get({})).statusCode, 200, "no key: development is open");
      assert.equal((await get({ "x-api-key": acme.key, "x-tenant-id": "acme" })).statusCode, 200);
      assert.equal((await get({ "x-api-key": acme.key })).statusCode, 403, "outside its tenant");
      for (const wrong of [`tfk_${"W".repeat(43)}`, "wrong", ""]) {
        const r = await get({ "x-api-key": wrong });
        assert.equal(r.statusCode, 401, `'${wrong}'`);
        assert.equal(r.json().code, "Unauthorized");
      }
    } finally {
      await app.close();
      await coordination.close();
    }
  });

  void test("without any key anywhere, a key that is sent is a 401 too", async () => {
    const app = await stubServer(
      { getTask: () => Promise.resolve(sampleTask()) },
      { overrides: { nodeEnv: "development", apiKeys: [] } },
    );
    const r = await app.inject({ url: "/v1/tasks/t1", headers: { "x-api-key": "anything" } });
    assert.equal(r.statusCode, 401);
    await app.close();
  });

  void test("buildServer refuses a keyless config outside development", () => {
    const config = loadConfig({
      env: {},
      requireApiKeys: false,
      overrides: { logLevel: "silent" },
    });
    assert.throws(
      () => buildServer({ engine: stubEngine(), config, ...serverAdapters(config) }),
      ConfigError,
    );
  });
});
