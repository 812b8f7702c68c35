/**
 * Stored API keys in process, on the memory coordination: the key check
 * (configured keys first, then stored ones through the cache), tenant scope,
 * expiry, revocation after the cache, the negative cache, and the start rule
 * "outside development, WF_API_KEYS or a live stored key".
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { pino } from "pino";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { ConfigError } from "../../../src/config/config-error.ts";
import { loadConfig } from "../../../src/config/load-config.ts";
import { UnavailableError } from "../../../src/domain/unavailable.ts";
import { ApiKeys, SYSTEM_TENANT } from "../../../src/engine/coordination/api-keys.ts";
import type { Coordination } from "../../../src/engine/coordination/coordination-port.ts";
import type { OpaqueTokens } from "../../../src/engine/coordination/opaque-tokens-port.ts";
import { requireKeysAtStart } from "../../../src/composition/require-keys-at-start.ts";
import { requireApiKey } from "../../../src/server/hooks/auth.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { installErrorHandling } from "../../../src/server/errors/error-mapping.ts";
import { storedKeyCheck } from "../../../src/server/hooks/stored-key-check.ts";
import { KEY, sampleTask, stubEngine } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

const CACHE_MS = 150;

/** The memory tokens, counting how often the check reaches them. */
function counting(c: Coordination): { source: { tokens: OpaqueTokens }; verifies: () => number } {
  let n = 0;
  const tokens = c.tokens;
  const wrapped: OpaqueTokens = {
    ...tokens,
    verify: (...args) => (n++, tokens.verify(...args)),
  };
  return { source: { tokens: wrapped }, verifies: () => n };
}

/** An app whose one route answers with the key id the check accepted. */
async function keyApp(
  envKeys: readonly string[],
  keys: ApiKeys,
  logTo?: Writable,
): Promise<FastifyInstance> {
  const loggerInstance: FastifyBaseLogger | undefined = logTo && pino({ level: "info" }, logTo);
  const app = Fastify(loggerInstance ? { loggerInstance } : {});
  installErrorHandling(app);
  app.addHook(
    "onRequest",
    requireApiKey(envKeys, { stored: storedKeyCheck(keys, { cacheMs: CACHE_MS }) }),
  );
  app.get("/whoami", (req) => ({ keyId: req.apiKeyId }));
  await app.ready();
  return app;
}

const as = (key: string, tenant?: string) => ({
  url: "/whoami",
  headers:
    tenant === undefined ? { "x-api-key": key } : { "x-api-key": key, "x-tenant-id": tenant },
});

void describe("stored API keys at the key check", () => {
  let coordination: Coordination;
  let keys: ApiKeys;
  let app: FastifyInstance;
  beforeEach(async () => {
    coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    keys = new ApiKeys(coordination);
    app = await keyApp([KEY], keys);
  });
  afterEach(async () => {
    await app.close();
    await coordination.close();
  });

  void test("a stored key is accepted and named key:<id>, never by its secret", async () => {
    const created = await keys.create({ name: "ci" });
    assert.match(created.key, /^tfk_[A-Za-z0-9_-]{43}$/);
    const r = await app.inject(as(created.key));
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { keyId: `key:${created.id}` });
  });

  void test("a key of WF_API_KEYS still works, as key#<n>", async () => {
    const r = await app.inject(as(KEY));
    assert.deepEqual([r.statusCode, r.json()], [200, { keyId: "key#1" }]);
  });

  void test("a wrong, missing or malformed key is a 401", async () => {
    const wrong = `tfk_${"A".repeat(43)}`;
    for (const headers of [{}, { "x-api-key": wrong }, { "x-api-key": "nonsense" }]) {
      const r = await app.inject({ url: "/whoami", headers });
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().code, "Unauthorized");
    }
  });

  void test("a tenant-scoped key: 200 for its tenant, 403 for another and for the default", async () => {
    const acme = await keys.create({ name: "acme-bff", tenant: "acme" });
    assert.equal((await app.inject(as(acme.key, "acme"))).statusCode, 200);
    for (const r of [await app.inject(as(acme.key, "globex")), await app.inject(as(acme.key))]) {
      assert.equal(r.statusCode, 403);
      assert.equal(r.json().code, "Forbidden");
    }
    const any = await keys.create({ name: "ops" });
    assert.equal((await app.inject(as(any.key, "globex"))).statusCode, 200, "unscoped: any tenant");
  });

  void test("an expired key is a 401, even while its last answer is cached", async () => {
    const k = await keys.create({ name: "short", expiresAt: new Date(Date.now() + 100) });
    assert.equal((await app.inject(as(k.key))).statusCode, 200);
    await sleep(120);
    assert.equal((await app.inject(as(k.key))).statusCode, 401);
    assert.equal((await keys.list())[0]?.state, "expired");
  });

  void test("a revoked key keeps working until the cache forgets it, then 401", async () => {
    const k = await keys.create({ name: "leaky" });
    assert.equal((await app.inject(as(k.key))).statusCode, 200);
    assert.equal(await keys.revoke(k.id), true);
    assert.equal((await app.inject(as(k.key))).statusCode, 200, "served from the cache");
    await sleep(CACHE_MS + 50);
    assert.equal((await app.inject(as(k.key))).statusCode, 401);
  });
});

void describe("what a storm of keys costs the backend", () => {
  void test("repeated wrong keys: one lookup; malformed keys: none; concurrent: one", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const { source, verifies } = counting(coordination);
    const keys = new ApiKeys(source);
    const app = await keyApp([KEY], keys);
    const wrong = `tfk_${"B".repeat(43)}`;
    for (let i = 0; i < 50; i++) assert.equal((await app.inject(as(wrong))).statusCode, 401);
    assert.equal(verifies(), 1, "a remembered miss is not asked again");
    for (let i = 0; i < 50; i++) await app.inject(as(`not-a-stored-key-${i}`));
    assert.equal(verifies(), 1, "only the stored shape is ever looked up");
    const k = await keys.create({ name: "burst" });
    const burst = await Promise.all(Array.from({ length: 20 }, () => app.inject(as(k.key))));
    assert.ok(burst.every((r) => r.statusCode === 200));
    assert.equal(verifies(), 2, "concurrent requests with one key share one lookup");
    await app.close();
    await coordination.close();
  });

  void test("a backend that fails is a 503 to retry, not a 401 or a 500", async () => {
    const broken: OpaqueTokens = {
      ...openCoordination({ kind: "memory", keyPrefix: "t:" }).tokens,
      verify: () => Promise.reject(new UnavailableError("coordination down")),
    };
    const app = await keyApp([KEY], new ApiKeys({ tokens: broken }));
    const r = await app.inject(as(`tfk_${"C".repeat(43)}`));
    assert.equal(r.statusCode, 503);
    assert.equal((await app.inject(as(KEY))).statusCode, 200, "WF_API_KEYS need no backend");
    await app.close();
  });
});

void describe("the server with a coordination and no WF_API_KEYS", () => {
  void test("outside development: built, but every request needs a stored key", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const config = loadConfig({
      env: {},
      requireApiKeys: false,
      overrides: { nodeEnv: "production", apiKeys: [], logLevel: "silent" },
    });
    const app = buildServer({
      engine: stubEngine({ getTask: () => Promise.resolve(sampleTask()) }),
      config,
      coordination,
      directory: serverAdapters(config).directory,
    });
    await app.ready();
    assert.equal((await app.inject({ url: "/v1/tasks/t1" })).statusCode, 401, "not open");
    const k = await new ApiKeys(coordination).create({ name: "first" });
    const r = await app.inject({ url: "/v1/tasks/t1", headers: { "x-api-key": k.key } });
    assert.equal(r.statusCode, 200);
    await app.close();
    await coordination.close();
  });

  void test("the key never reaches the log, accepted or refused", async () => {
    const lines: string[] = [];
    const logTo = new Writable({
      write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()),
    });
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const keys = new ApiKeys(coordination);
    const app = await keyApp([KEY], keys, logTo);
    const k = await keys.create({ name: "logged?", tenant: "acme" });
    await app.inject(as(k.key, "acme"));
    await app.inject(as(k.key, "other"));
    await keys.revoke(k.id);
    await sleep(CACHE_MS + 50);
    await app.inject(as(k.key, "acme"));
    const log = lines.join("");
    assert.match(log, /API key used outside its tenant/);
    assert.match(log, /rejected API key/);
    const secret = k.key.slice(4);
    assert.ok(!log.includes(secret), "the secret is in the log");
    await app.close();
    await coordination.close();
  });
});

void describe("start: WF_API_KEYS or a live stored key outside development", () => {
  void test("no key anywhere: a ConfigError naming WF_API_KEYS and taskflow keys create", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const config = { apiKeys: [], nodeEnv: "production" };
    await assert.rejects(requireKeysAtStart(config, coordination), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /WF_API_KEYS/);
      assert.match(e.message, /taskflow keys create/);
      return true;
    });
    const keys = new ApiKeys(coordination);
    const k = await keys.create({ name: "first" });
    await requireKeysAtStart(config, coordination);
    await keys.revoke(k.id);
    await assert.rejects(requireKeysAtStart(config, coordination), ConfigError, "revoked: none");
    await requireKeysAtStart({ apiKeys: [], nodeEnv: "development" }, coordination);
    await requireKeysAtStart({ apiKeys: [KEY], nodeEnv: "production" }, coordination);
    await coordination.close();
  });
});

void describe("ApiKeys", () => {
  void test("list shows id, name, tenant, dates and state, never the secret or its hash", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const keys = new ApiKeys(coordination);
    const a = await keys.create({ name: "a", tenant: "acme" });
    const b = await keys.create({ name: "b", expiresAt: new Date(Date.now() + 3600_000) });
    await keys.revoke(a.id);
    const list = await keys.list();
    assert.deepEqual(list.map((k) => [k.name, k.tenant, k.state, k.expiresAt === null]).sort(), [
      ["a", "acme", "revoked", true],
      ["b", null, "live", false],
    ]);
    const text = JSON.stringify(list);
    for (const k of [a, b]) {
      const secret = k.key.slice(4);
      assert.ok(!text.includes(secret));
      assert.ok(!text.includes(createHash("sha256").update(secret).digest("hex")));
    }
    // Kept apart from every tenant's own tokens.
    assert.equal((await coordination.tokens.list("acme", "api-key")).length, 0);
    assert.equal((await coordination.tokens.list(SYSTEM_TENANT, "api-key")).length, 2);
    await coordination.close();
  });

  void test("rotate: a new key with the same name, tenant and lifetime; the old one revoked", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const keys = new ApiKeys(coordination);
    const days90 = 90 * 24 * 3600_000;
    const old = await keys.create({
      name: "bff",
      tenant: "acme",
      expiresAt: new Date(Date.now() + days90),
    });
    await sleep(20);
    const next = await keys.rotate(old.id);
    assert.ok(next !== null);
    assert.equal(next.name, "bff");
    assert.equal(next.tenant, "acme");
    assert.notEqual(next.key, old.key);
    const lifetime = next.expiresAt!.getTime() - next.createdAt.getTime();
    assert.ok(Math.abs(lifetime - days90) < 1000, `lifetime ${lifetime}`);
    assert.ok(next.expiresAt!.getTime() > old.expiresAt!.getTime(), "counted from the rotation");
    assert.equal(await keys.verify(old.key), null);
    assert.equal((await keys.verify(next.key))?.id, next.id);
    assert.equal(await keys.rotate(old.id), null, "a revoked key is not rotated again");
    await coordination.close();
  });

  void test("bad input: a Validation error, nothing stored", async () => {
    const coordination = openCoordination({ kind: "memory", keyPrefix: "t:" });
    const keys = new ApiKeys(coordination);
    for (const o of [
      { name: "" },
      { name: "x".repeat(129) },
      { name: "line\nbreak" },
      { name: "ok", tenant: "not a tenant!" },
      { name: "ok", expiresAt: new Date(Date.now() - 1000) },
    ]) {
      await assert.rejects(keys.create(o), { name: "TaskflowError", code: "Validation" });
    }
    assert.equal((await keys.list()).length, 0);
    await coordination.close();
  });
});
