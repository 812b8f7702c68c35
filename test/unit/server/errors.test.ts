import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { ErrorCodes, TaskflowError } from "../../../src/domain/errors.ts";
import { statusOf, toProblem } from "../../../src/server/errors/error-mapping.ts";
import { authed, KEY, sampleTask, stubServer } from "./stub-engine.ts";

const EXPECTED_STATUS = {
  Validation: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  NotOpen: 409,
  Conflict: 409,
  TooLarge: 413,
  RateLimited: 429,
  InProgress: 409,
  Unprocessable: 422,
};

function assertProblem(
  r: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
) {
  assert.equal(r.statusCode, status);
  assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
  const p = r.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(p).sort(), ["code", "detail", "reason", "status", "title", "type"]);
  assert.equal(p.status, status);
  assert.equal(p.code, code);
  assert.equal(p.type, `urn:taskflow:problem:${code}`);
  return p;
}

void describe("engine errors", () => {
  void test("every catalogue code has its status", async () => {
    for (const code of ErrorCodes) {
      assert.equal(statusOf(code), EXPECTED_STATUS[code]);
      const app = await stubServer({
        getTask: () => Promise.reject(new TaskflowError(code, `because ${code}`)),
      });
      const r = await app.inject({ url: "/v1/tasks/t1", headers: authed() });
      const p = assertProblem(r, EXPECTED_STATUS[code], code);
      assert.equal(p.detail, `because ${code}`);
      await app.close();
    }
  });

  void test("an unexpected error is a 500 that leaks nothing but the request id", async () => {
    const logged: string[] = [];
    const logTo = new Writable({
      write: (c: Buffer, _e, done) => (logged.push(c.toString()), done()),
    });
    const app = await stubServer(
      {
        getTask: () =>
          Promise.reject(new Error("SELECT secret FROM pg_shadow failed at /srv/app.ts:12")),
      },
      { logTo },
    );
    const r = await app.inject({
      url: "/v1/tasks/t1",
      headers: { ...authed(), "x-request-id": "req-9" },
    });
    const p = assertProblem(r, 500, "Internal");
    assert.ok(!r.body.includes("secret") && !r.body.includes("/srv"));
    assert.match(String(p.detail), /req-9/);
    assert.ok(logged.join("").includes("pg_shadow"), "the cause is in the log");
    await app.close();
  });

  void test("toProblem maps Fastify-style 4xx errors by status", () => {
    assert.equal(toProblem({ statusCode: 415, message: "x" }, "r").code, "UnsupportedMediaType");
    assert.equal(toProblem({ statusCode: 415, message: "x" }, "r").status, 415);
    assert.equal(toProblem({ statusCode: 405, message: "x" }, "r").code, "Validation");
    assert.equal(toProblem({ statusCode: 413, message: "x" }, "r").code, "TooLarge");
    assert.equal(toProblem({ statusCode: 429, message: "x" }, "r").code, "RateLimited");
    assert.equal(toProblem({ statusCode: 503, message: "x" }, "r").code, "Internal");
  });
});

void describe("Fastify's own errors are problems too, never 500", () => {
  const post = (payload: string, headers: Record<string, string> = {}) => ({
    method: "POST" as const,
    url: "/v1/processes",
    headers: { ...authed(), "content-type": "application/json", ...headers },
    payload,
  });

  void test("schema validation → 400", async () => {
    const app = await stubServer();
    for (const body of [
      "{}",
      '{"processKey":5}',
      '{"processKey":"bad key!"}',
      '{"processKey":"k","vars":[]}',
      "[]",
      '"str"',
      "null",
    ]) {
      assertProblem(await app.inject(post(body)), 400, "Validation");
    }
    await app.close();
  });

  void test("malformed JSON, prototype poisoning, deep nesting → 400", async () => {
    const app = await stubServer();
    for (const body of [
      " ",
      "\n",
      "{",
      '{"processKey":"k",}',
      '{"__proto__":{"x":1},"processKey":"k"}',
      "[".repeat(10_000),
    ]) {
      assertProblem(await app.inject(post(body)), 400, "Validation");
    }
    await app.close();
  });

  void test("body too large → 413 TooLarge", async () => {
    const app = await stubServer({}, { overrides: { bodyLimit: 100 } });
    const r = await app.inject(
      post(JSON.stringify({ processKey: "k", vars: { a: "x".repeat(200) } })),
    );
    assertProblem(r, 413, "TooLarge");
    await app.close();
  });

  void test("a body without Content-Type: application/json → 415 naming the header", async () => {
    const app = await stubServer();
    const json = '{"processKey":"k"}';
    for (const [body, contentType] of [
      ["<x/>", "application/xml"],
      [json, "text/plain"],
      [json, "application/x-www-form-urlencoded"],
      [json, undefined],
    ] as const) {
      const headers = { ...authed() } as Record<string, string>;
      if (contentType !== undefined) headers["content-type"] = contentType;
      const r = await app.inject({ method: "POST", url: "/v1/processes", headers, payload: body });
      const p = assertProblem(r, 415, "UnsupportedMediaType");
      assert.match(String(p.detail), /Content-Type: application\/json/, String(contentType));
    }
    await app.close();
  });

  void test("a POST whose body is optional works with no body, whatever its Content-Type", async () => {
    const app = await stubServer({
      claim: () => Promise.resolve(sampleTask({ status: "claimed" })),
      release: () => Promise.resolve(sampleTask()),
    });
    for (const action of ["claim", "release"]) {
      for (const contentType of [undefined, "application/json", "text/plain"]) {
        const headers = { ...authed() } as Record<string, string>;
        if (contentType !== undefined) headers["content-type"] = contentType;
        const r = await app.inject({ method: "POST", url: `/v1/tasks/t1/${action}`, headers });
        assert.equal(r.statusCode, 200, `${action} with ${contentType}: ${r.body}`);
      }
    }
    await app.close();
  });

  void test("missing or malformed headers → 400", async () => {
    const app = await stubServer();
    const noActor = await app.inject({
      method: "POST",
      url: "/v1/processes",
      headers: { "x-api-key": KEY },
      payload: { processKey: "k" },
    });
    assertProblem(noActor, 400, "Validation");
    const badActor = await app.inject(post('{"processKey":"k"}', { "x-actor-id": "no spaces" }));
    assertProblem(badActor, 400, "Validation");
    const badTenant = await app.inject(
      post('{"processKey":"k"}', { "x-tenant-id": "x".repeat(65) }),
    );
    assertProblem(badTenant, 400, "Validation");
    await app.close();
  });

  void test("an optional body, when sent, must still be an object", async () => {
    const app = await stubServer();
    for (const payload of [
      " ",
      "[]",
      "null",
      '"x"',
      '{"vars":[]}',
      '{"next":{"assignee":{"kind":"x"}}}',
    ]) {
      const r = await app.inject({
        method: "POST",
        url: "/v1/tasks/t1/complete",
        headers: { ...authed(), "content-type": "application/json" },
        payload,
      });
      assertProblem(r, 400, "Validation");
    }
    await app.close();
  });

  void test("unknown route → 404 NotFound", async () => {
    const app = await stubServer();
    assertProblem(await app.inject({ url: "/nope" }), 404, "NotFound");
    assertProblem(
      await app.inject({ method: "DELETE", url: "/v1/tasks/t1", headers: authed() }),
      404,
      "NotFound",
    );
    await app.close();
  });

  void test("bad path ids → 400", async () => {
    const app = await stubServer();
    assertProblem(
      await app.inject({ url: `/v1/tasks/${"a".repeat(129)}`, headers: authed() }),
      400,
      "Validation",
    );
    assertProblem(
      await app.inject({ url: "/v1/tasks/a%20b", headers: authed() }),
      400,
      "Validation",
    );
    await app.close();
  });
});
