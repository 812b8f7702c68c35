/**
 * Property: no generated bad trigger request gets a 5xx or an answer that is
 * not problem+json, starts a run (the DefinitionRuns double records none), or
 * changes a row. SQLite, `inject`; the dot-segment case over a real socket.
 *
 * Each request carries at least one defect that must stop it — no or a wrong
 * API key, no or a malformed actor, a malformed tenant or one without the
 * route, a path no trigger has (hostile segments, encodings, lengths), a
 * method the path has no trigger for, a body that is bad JSON, not JSON,
 * too large, too deep, or holds text a store cannot keep, bad
 * percent-encoding or a NUL in the path — and random other hostility besides.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped JSON */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../support/backends.ts";
import { snapshotDatabase } from "../support/db-snapshot.ts";
import { minimal } from "../support/definition-fixtures.ts";
import { RecordingDefinitionRuns } from "../support/recording-definition-runs.ts";

const KEY = "hook-prop-key-0123456789abcdefgh";
const RUNS = 1200;
const BODY_LIMIT = 16 * 1024;
const seedOption = () => (process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {});

let tf: Taskflow;
let url: string;
let drop: () => Promise<void>;
const runs = new RecordingDefinitionRuns();

before(async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  url = db.url;
  drop = () => db.drop();
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [KEY],
      logLevel: "silent",
      rateLimit: false,
      maxEventLoopDelay: 0,
      bodyLimit: BODY_LIMIT,
      triggerResponseTimeout: 0,
    },
  });
  tf = await createTaskflow(config, { definitionRuns: runs });
  const r = await tf.server.inject({
    method: "POST",
    url: "/v1/definitions/orders/publish",
    headers: { "x-api-key": KEY, "x-actor-id": "alice", "x-tenant-id": "t1" },
    payload: {
      ...minimal("orders"),
      triggers: [
        { method: "POST", path: "/orders/{id}" },
        { method: "PUT", path: "/orders/{id}/items/{item}" },
      ],
    },
  });
  assert.equal(r.statusCode, 201);
});

after(async () => {
  await tf?.close();
  await drop?.();
});

interface BadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  payload?: string;
}

const hostileSegment = fc.oneof(
  fc.constantFrom("..", ".", "%2e%2e", "%2F", "%00", "%ZZ", "%", "%E0%A4%A", "~", "-", "_"),
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", maxLength: 6 }).map(encodeURIComponent),
  fc.constantFrom("a".repeat(300), "%41".repeat(200), "orders", "items", ""),
);
/**
 * Appended to `/zz-none`, a path no trigger has. `inject` resolves the URL as
 * WHATWG URL does, so dot segments ("..", "%2e%2e") are removed before the
 * server sees them: `/zz-none/%2e%2e/orders/x` arrives as `/orders/x`, a good
 * request. Paths that climb out of `/zz-none` are left out; a server reached over a
 * socket gets them raw and answers 404 (the segments are literal there).
 */
const hostilePath = fc
  .array(hostileSegment, { maxLength: 6 })
  .map((segs) => "/" + segs.join("/"))
  .filter((p) =>
    new URL(`/v1/hooks/zz-none${p}`, "http://h").pathname.startsWith("/v1/hooks/zz-none"),
  );
const goodHeaders = { "x-api-key": KEY, "x-actor-id": "alice", "x-tenant-id": "t1" };

/** One sure defect, on top of a request that would otherwise start a run. */
const defect: fc.Arbitrary<(r: BadRequest) => BadRequest> = fc.oneof(
  fc.constant((r: BadRequest) => ({ ...r, headers: without(r.headers, "x-api-key") })),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((k) => k !== KEY && /^[\x21-\x7e]+$/.test(k))
    .map((k) => (r: BadRequest) => ({ ...r, headers: { ...r.headers, "x-api-key": k } })),
  fc.constant((r: BadRequest) => ({ ...r, headers: without(r.headers, "x-actor-id") })),
  fc
    .constantFrom("", " ", "a b", "x".repeat(300), "ä", "../x", "a,b")
    .map((a) => (r: BadRequest) => ({ ...r, headers: { ...r.headers, "x-actor-id": a } })),
  fc
    .constantFrom("t2", "default", "T1", "t1 ", "", "a/b", "x".repeat(100))
    .map((t) => (r: BadRequest) => ({ ...r, headers: { ...r.headers, "x-tenant-id": t } })),
  fc.constant((r: BadRequest) => ({ ...r, headers: without(r.headers, "x-tenant-id") })),
  hostilePath.map((p) => (r: BadRequest) => ({ ...r, path: `/zz-none${p}` })),
  fc.constantFrom("GET", "PATCH", "DELETE").map((m) => (r: BadRequest) => ({ ...r, method: m })),
  fc
    .constantFrom("{", "[1,", '{"a":}', "nul", "{'a':1}", " ", '{"a":1}x', '"\\ud800"')
    .map((p) => (r: BadRequest) => json({ ...r, method: "POST" }, p)),
  fc
    .constantFrom(
      "text/plain",
      "application/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    )
    .map((t) => (r: BadRequest) => ({
      ...r,
      method: "POST",
      headers: { ...r.headers, "content-type": t },
      payload: "a=1",
    })),
  fc.constant((r: BadRequest) =>
    json({ ...r, method: "POST" }, JSON.stringify({ a: "x".repeat(BODY_LIMIT) })),
  ),
  fc.constant((r: BadRequest) => json({ ...r, method: "POST" }, "[".repeat(100) + "]".repeat(100))),
  fc
    .constantFrom(
      '{"a":"\\u0000"}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      "1e400",
    )
    .map((p) => (r: BadRequest) => json({ ...r, method: "POST" }, p)),
  fc
    .constantFrom("%ZZ", "%E0%A4%A", "a%00b", "%00", "%ED%A0%80")
    .map((s) => (r: BadRequest) => ({ ...r, path: `/orders/${s}` })),
);

function without(h: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _gone, ...rest } = h;
  return rest;
}

function json(r: BadRequest, payload: string): BadRequest {
  return { ...r, headers: { ...r.headers, "content-type": "application/json" }, payload };
}

/** A valid trigger request first (POST /orders/{id}), then random hostility, then the sure defect. */
const badRequest = fc
  .record({
    id: fc.stringMatching(/^[A-Za-z0-9]{1,10}$/),
    query: fc.option(fc.string({ maxLength: 20 }).map(encodeURIComponent), { nil: undefined }),
    extraHeader: fc.option(
      fc.tuple(
        fc.constantFrom("x-forwarded-for", "x-extra", "cookie"),
        fc.string({ maxLength: 20 }).filter((s) => /^[\x20-\x7e]*$/.test(s)),
      ),
      { nil: undefined },
    ),
    defect,
  })
  .map(({ id, query, extraHeader, defect: apply }) => {
    const base: BadRequest = {
      method: "POST",
      path: `/orders/${id}${query === undefined ? "" : `?q=${query}`}`,
      headers: { ...goodHeaders, ...(extraHeader ? { [extraHeader[0]]: extraHeader[1] } : {}) },
    };
    return apply(base);
  });

void describe("bad trigger requests", () => {
  it(`${RUNS} bad requests: never a 5xx, always problem+json, no start, no write`, async () => {
    const before = await snapshotDatabase(url);
    let count = 0;
    await fc.assert(
      fc.asyncProperty(badRequest, async (r) => {
        count++;
        const res = await tf.server.inject({
          method: r.method,
          url: `/v1/hooks${r.path}`,
          headers: r.headers,
          ...(r.payload === undefined ? {} : { payload: r.payload }),
        });
        const detail = `${r.method} ${r.path.slice(0, 80)} → ${res.statusCode} ${res.body.slice(0, 200)}`;
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, detail);
        assert.match(String(res.headers["content-type"]), /^application\/problem\+json/, detail);
        const p = res.json<Record<string, any>>();
        assert.equal(p.status, res.statusCode, detail);
        assert.equal(typeof p.code, "string", detail);
        assert.equal(runs.starts.length, 0, `a run was started by ${detail}`);
      }),
      { numRuns: RUNS, ...seedOption() },
    );
    assert.ok(count >= 1000);
    assert.equal(await snapshotDatabase(url), before, "a refused request changed the database");
  });

  it("the same request without its defect starts a run (the property can fail)", async () => {
    const startsBefore = runs.starts.length;
    const res = await tf.server.inject({
      method: "POST",
      url: "/v1/hooks/orders/abc?q=1",
      headers: goodHeaders,
    });
    assert.equal(res.statusCode, 202);
    assert.equal(runs.starts.length, startsBefore + 1);
  });

  it("dot segments sent raw over a socket are literal: they never climb to another trigger", async () => {
    const base = new URL(await tf.server.listen({ host: "127.0.0.1", port: 0 }));
    const startsBefore = runs.starts.length;
    for (const path of ["/zz-none/../orders/x", "/zz-none/%2e%2e/orders/./orders"]) {
      const res = await rawPost(base, `/v1/hooks${path}`);
      assert.equal(res.status, 404, `${path} → ${res.status} ${res.body}`);
    }
    assert.equal(runs.starts.length, startsBefore);
  });
});

/** A POST whose path is sent as written: a URL string would be resolved (dot segments removed) first. */
function rawPost(base: URL, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path, method: "POST", headers: goodHeaders },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
