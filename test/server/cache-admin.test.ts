/**
 * The cache admin routes on a SQLite node (createTaskflow): the incomplete
 * fences with owners and ages, an operator's completion (idempotent), and
 * what is refused — no key, a key scoped to a tenant, an unknown or
 * malformed mutation id — as problem+json 4xx.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openDatabase, type Database } from "../../src/adapters/store/open-database.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "admin-key-0123456789abcdefghijkl";
const sqlite = deployments.find((d) => d.name === "sqlite")!;

void describe("cache admin routes on sqlite", () => {
  let deployment: Deployment;
  let database: Database;

  before(async () => {
    deployment = await sqlite.start({ apiKeys: [KEY], logLevel: "silent", rateLimit: false });
    // The node's own file, opened again in this process as a second writer would be.
    database = openDatabase(deployment.nodes[0]!.config.databaseUrl);
  });

  after(async () => {
    await database?.close();
    await deployment?.close();
  });

  const call = (method: "GET" | "POST", url: string, key: string | null = KEY) =>
    deployment.inject({ method, url, headers: key === null ? {} : { "x-api-key": key } });

  test("a fence is listed with its owner and age, completed once, then no longer listed", async () => {
    const fence = await database.cacheLedger.beginMutation("workflow", "node-x/42/boot-1");
    const before = await database.cacheLedger.dataRevision();
    const listed = await call("GET", "/v1/admin/cache/mutations");
    assert.equal(listed.statusCode, 200);
    const items = listed.json().items as any[];
    assert.equal(items.length, 1);
    assert.equal(items[0].mutationId, fence.mutationId);
    assert.equal(items[0].owner, "node-x/42/boot-1");
    assert.equal(items[0].scope, "workflow");
    assert.ok(items[0].ageMs >= 0, "ageMs");
    assert.ok(!Number.isNaN(Date.parse(items[0].createdAt)), "createdAt");

    const url = `/v1/admin/cache/mutations/${fence.mutationId}/complete`;
    const first = await call("POST", url);
    assert.equal(first.statusCode, 200);
    assert.deepEqual(first.json(), { mutationId: fence.mutationId, completed: true });
    const after = await database.cacheLedger.dataRevision();
    assert.ok(after > before, `revision ${after} after ${before}`);
    const again = await call("POST", url);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), { mutationId: fence.mutationId, completed: false });
    assert.deepEqual((await call("GET", "/v1/admin/cache/mutations")).json(), { items: [] });
  });

  test("an unknown mutation id is 404 NotFound", async () => {
    const r = await call("POST", "/v1/admin/cache/mutations/no-such-fence/complete");
    assert.equal(r.statusCode, 404);
    assert.match(String(r.headers["content-type"]), /application\/problem\+json/);
    assert.equal(r.json().code, "NotFound");
    assert.match(r.json().detail, /no-such-fence/);
  });

  test("a malformed or over-long mutation id is 400 Validation", async () => {
    for (const id of ["has%20space", "x".repeat(65), "semi%3Bcolon"]) {
      const r = await call("POST", `/v1/admin/cache/mutations/${id}/complete`);
      assert.equal(r.statusCode, 400, id);
      assert.equal(r.json().code, "Validation");
    }
  });

  test("without a key: 401; with a key scoped to one tenant: 403", async () => {
    assert.equal((await call("GET", "/v1/admin/cache/mutations", null)).statusCode, 401);
    const scoped = await new ApiKeys(deployment.nodes[0]!.coordination).create({
      name: "acme",
      tenant: "default",
    });
    for (const [method, url] of [
      ["GET", "/v1/admin/cache/mutations"],
      ["POST", "/v1/admin/cache/mutations/any/complete"],
    ] as const) {
      const r = await call(method, url, scoped.key);
      assert.equal(r.statusCode, 403, url);
      assert.equal(r.json().code, "Forbidden");
      assert.match(r.json().detail, /key of every tenant/);
    }
    // An unscoped stored key is an operator's key.
    const operator = await new ApiKeys(deployment.nodes[0]!.coordination).create({
      name: "ops",
      tenant: null,
    });
    assert.equal((await call("GET", "/v1/admin/cache/mutations", operator.key)).statusCode, 200);
  });

  test("/openapi.json documents both routes", async () => {
    const r = await deployment.inject({ method: "GET", url: "/openapi.json" });
    const paths = r.json().paths as Record<string, any>;
    assert.ok(paths["/v1/admin/cache/mutations"]?.get, "GET documented");
    assert.ok(
      paths["/v1/admin/cache/mutations/{id}/complete"]?.post?.responses?.["404"],
      "POST documented",
    );
  });
});
