/**
 * /v1/hooks end to end on SQLite: definitions published over REST, the node's
 * route table following them, runs started through the DefinitionRuns test
 * double (test/support/recording-definition-runs.ts). The 202 shape and the
 * vars, a `respond` answer within the wait and a 202 after it, 404/405,
 * tenants apart, the API key and actor rules, bad bodies.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../support/backends.ts";
import { minimal } from "../support/definition-fixtures.ts";
import { RecordingDefinitionRuns } from "../support/recording-definition-runs.ts";

const KEY = "e2e-key-0123456789abcdefghijkl";
const WAIT_MS = 300;
let tf: Taskflow;
let drop: () => Promise<void>;
const runs = new RecordingDefinitionRuns();

type Json = Record<string, any>;
type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS";

async function call(
  method: Method,
  url: string,
  opts: { body?: unknown; headers?: Record<string, string | undefined> } = {},
): Promise<{ status: number; body: Json; type: string; headers: Json }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    "x-api-key": KEY,
    "x-actor-id": "alice",
    "x-tenant-id": "t1",
    ...opts.headers,
  })) {
    if (v !== undefined) headers[k] = v;
  }
  const r = await tf.server.inject({
    method,
    url,
    headers,
    ...(opts.body === undefined
      ? {}
      : { payload: typeof opts.body === "string" ? opts.body : (opts.body as object) }),
  });
  let parsed: Json;
  try {
    parsed = r.json();
  } catch {
    parsed = { raw: r.body };
  }
  return {
    status: r.statusCode,
    body: parsed,
    type: String(r.headers["content-type"]),
    headers: r.headers,
  };
}

function responding(key: string, path: string): Json {
  return {
    key,
    name: key,
    start: "answer",
    states: {
      answer: { type: "respond", status: 200, body: "{ 'ok': true }", next: "end" },
      end: { type: "end" },
    },
    triggers: [{ method: "POST", path }],
  };
}

async function publish(key: string, doc: Json, tenant = "t1"): Promise<number> {
  const r = await call("POST", `/v1/definitions/${key}/publish`, {
    body: doc,
    headers: { "x-tenant-id": tenant },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.version as number;
}

before(async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  drop = () => db.drop();
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [KEY],
      logLevel: "silent",
      rateLimit: false,
      maxEventLoopDelay: 0,
      triggerResponseTimeout: WAIT_MS,
      bodyLimit: 64 * 1024,
    },
  });
  tf = await createTaskflow(config, { definitionRuns: runs });
  await publish("orders", {
    ...minimal("orders"),
    triggers: [
      { method: "POST", path: "/orders/{id}" },
      { method: "GET", path: "/orders/{id}" },
      { method: "PUT", path: "/orders/new" },
    ],
  });
  await publish("quote", responding("quote", "/quote"));
  await publish("slow", responding("slow", "/slow"));
  runs.responses.set("quote", { status: 200, body: { ok: true, price: 12 }, afterMs: 10 });
  runs.responses.set("slow", { status: 200, body: { ok: true }, afterMs: 5 * WAIT_MS });
});

after(async () => {
  await tf?.close();
  await drop?.();
});

beforeEach(() => {
  runs.starts.length = 0;
});

void describe("/v1/hooks", () => {
  test("a match starts the run: 202 with its ids; vars are { body, query, params }", async () => {
    const r = await call("POST", "/v1/hooks/orders/A%2042?x=1&x=2&y=z", {
      body: { amount: 5 },
      headers: { "x-actor-id": "bob" },
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), [
      "definitionKey",
      "instanceId",
      "runId",
      "version",
    ]);
    assert.equal(r.body.definitionKey, "orders");
    assert.equal(r.body.version, 1);
    assert.equal(runs.starts.length, 1);
    const [s] = runs.starts;
    assert.deepEqual(s!.actor, { tenantId: "t1", actorId: "bob" });
    assert.deepEqual(s!.command, {
      key: "orders",
      version: 1,
      vars: { body: { amount: 5 }, query: { x: ["1", "2"], y: "z" }, params: { id: "A 42" } },
    });
    assert.equal(r.body.runId, s!.runId);
  });

  test("no body is null; a literal route wins over a parameter one", async () => {
    const r = await call("GET", "/v1/hooks/orders/7/");
    assert.equal(r.status, 202);
    assert.deepEqual(runs.starts[0]!.command.vars, { body: null, query: {}, params: { id: "7" } });
    const put = await call("PUT", "/v1/hooks/orders/new", { body: [1, 2] });
    assert.equal(put.status, 202);
    assert.deepEqual(runs.starts[1]!.command.vars.params, {});
  });

  test("a run that responds within the wait answers with the respond state", async () => {
    const r = await call("POST", "/v1/hooks/quote", { body: {} });
    assert.equal(r.status, 200);
    assert.match(r.type, /application\/json/);
    assert.deepEqual(r.body, { ok: true, price: 12 });
  });

  test("a run that has not responded when the wait is over: 202", async () => {
    const started = Date.now();
    const r = await call("POST", "/v1/hooks/slow");
    assert.equal(r.status, 202);
    assert.equal(r.body.definitionKey, "slow");
    assert.ok(Date.now() - started >= WAIT_MS - 20, "waited for the respond state");
  });

  test("a definition without a respond state is answered at once", async () => {
    runs.responses.set("orders", { status: 201, body: {}, afterMs: 0 });
    try {
      const r = await call("POST", "/v1/hooks/orders/1");
      assert.equal(r.status, 202);
    } finally {
      runs.responses.delete("orders");
    }
  });

  test("no trigger for the path: 404; the path but not the method: 405 with Allow", async () => {
    const none = await call("POST", "/v1/hooks/nothing/here");
    assert.equal(none.status, 404);
    assert.match(none.type, /application\/problem\+json/);
    assert.equal(none.body.code, "NotFound");
    const wrong = await call("DELETE", "/v1/hooks/orders/1");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.allow, "GET, POST");
    assert.equal(wrong.body.code, "MethodNotAllowed");
    assert.match(wrong.type, /application\/problem\+json/);
    const head = await call("HEAD", "/v1/hooks/orders/1");
    assert.equal(head.status, 404);
    assert.equal(runs.starts.length, 0);
  });

  test("tenants are apart: tenant A's trigger is not reachable with tenant B's header", async () => {
    const r = await call("POST", "/v1/hooks/orders/1", { headers: { "x-tenant-id": "t2" } });
    assert.equal(r.status, 404);
    const dflt = await call("POST", "/v1/hooks/orders/1", {
      headers: { "x-tenant-id": undefined },
    });
    assert.equal(dflt.status, 404);
    await publish(
      "orders",
      { ...minimal("orders"), triggers: [{ method: "POST", path: "/b" }] },
      "t2",
    );
    assert.equal(
      (await call("POST", "/v1/hooks/b", { headers: { "x-tenant-id": "t2" } })).status,
      202,
    );
    assert.equal((await call("POST", "/v1/hooks/b")).status, 404);
    assert.deepEqual(
      runs.starts.map((s) => s.actor.tenantId),
      ["t2"],
    );
  });

  test("API key and actor as on every route: 401 without a key, 400 without an actor", async () => {
    const nokey = await call("POST", "/v1/hooks/orders/1", { headers: { "x-api-key": undefined } });
    assert.equal(nokey.status, 401);
    const noactor = await call("POST", "/v1/hooks/orders/1", {
      headers: { "x-actor-id": undefined },
    });
    assert.equal(noactor.status, 400);
    assert.equal(noactor.body.code, "Validation");
    const badTenant = await call("POST", "/v1/hooks/orders/1", {
      headers: { "x-tenant-id": "a b" },
    });
    assert.equal(badTenant.status, 400);
    assert.equal(runs.starts.length, 0);
  });

  test("bad bodies: 400 bad JSON, 415 not JSON, 413 too large; nothing starts", async () => {
    const json = { "content-type": "application/json" };
    assert.equal(
      (await call("POST", "/v1/hooks/orders/1", { body: "{", headers: json })).status,
      400,
    );
    const text = await call("POST", "/v1/hooks/orders/1", {
      body: "a=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(text.status, 415);
    const big = await call("POST", "/v1/hooks/orders/1", {
      body: JSON.stringify({ a: "x".repeat(70 * 1024) }),
      headers: json,
    });
    assert.equal(big.status, 413);
    const nul = await call("POST", "/v1/hooks/orders/a%00b");
    assert.equal(nul.status, 400);
    assert.equal(runs.starts.length, 0);
  });

  test("a start the runs refuse is its error (400), as problem+json", async () => {
    runs.refuseVars.add("orders");
    try {
      const r = await call("POST", "/v1/hooks/orders/1", { body: { x: 1 } });
      assert.equal(r.status, 400);
      assert.match(r.type, /application\/problem\+json/);
    } finally {
      runs.refuseVars.delete("orders");
    }
  });

  test("publish and retract change this node's table at once", async () => {
    await publish("moving", {
      ...minimal("moving"),
      triggers: [{ method: "POST", path: "/m/one" }],
    });
    assert.equal((await call("POST", "/v1/hooks/m/one")).status, 202);
    const v2 = await publish("moving", {
      ...minimal("moving"),
      triggers: [{ method: "POST", path: "/m/two" }],
    });
    assert.equal((await call("POST", "/v1/hooks/m/one")).status, 404);
    const two = await call("POST", "/v1/hooks/m/two");
    assert.equal(two.status, 202);
    assert.equal(two.body.version, v2);
    const retracted = await call("POST", `/v1/definitions/moving/versions/${v2}/retract`);
    assert.equal(retracted.status, 200);
    // Version 1 is the head again: its route is back.
    assert.equal((await call("POST", "/v1/hooks/m/two")).status, 404);
    const one = await call("POST", "/v1/hooks/m/one");
    assert.equal(one.body.version, 1);
  });

  test("/openapi.json documents the hook route", async () => {
    const r = await tf.server.inject({ method: "GET", url: "/openapi.json" });
    const op = (r.json<Json>().paths as Json)["/v1/hooks/{*}"]?.post as Json | undefined;
    assert.ok(op?.summary && op.description);
    assert.ok(op.responses["202"]);
  });
});
