import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import type { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { statusOf, type ProblemCode } from "../../../src/server/errors/error-mapping.ts";
import { packageVersion, UNKNOWN_VERSION } from "../../../src/server/openapi/package-version.ts";
import { stubEngine, testConfig } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

const ROUTES: [string, string][] = [
  ["post", "/v1/processes"],
  ["get", "/v1/processes"],
  ["post", "/v1/assignments"],
  ["get", "/v1/tasks"],
  ["get", "/v1/tasks/{id}"],
  ["post", "/v1/tasks/{id}/claim"],
  ["post", "/v1/tasks/{id}/release"],
  ["post", "/v1/tasks/{id}/complete"],
  ["post", "/v1/tasks/{id}/complete-and-end"],
  ["get", "/v1/tasks/{id}/events"],
  ["post", "/v1/tasks/{id}/comments"],
  ["post", "/v1/tasks/{id}/delegate"],
  ["post", "/v1/tasks/{id}/resolve"],
  ["post", "/v1/tasks/{id}/reassign"],
  ["get", "/v1/instances/{id}"],
  ["get", "/v1/instances/{id}/completion"],
  ["get", "/v1/instances/{id}/events"],
  ["get", "/v1/definitions"],
  ["get", "/v1/definitions/{key}"],
  ["post", "/v1/workflows/{name}/runs"],
  ["get", "/v1/runs"],
  ["get", "/v1/runs/{id}"],
  ["get", "/v1/runs/{id}/history"],
  ["post", "/v1/runs/{id}/signals/{name}"],
  ["post", "/v1/runs/{id}/cancel"],
  ["get", "/healthz"],
  ["get", "/readyz"],
];

const ROOT = new URL("../../../", import.meta.url);
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { version: string }
).version;

/** The whole server: the inbox routes and, with a (never called) runs use case, the runs routes. */
async function server() {
  const runs = {} as DurableRuns;
  const app = buildServer({
    engine: stubEngine(),
    config: testConfig(),
    runs,
    ...serverAdapters(testConfig()),
  });
  await app.ready();
  return app;
}

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   the OpenAPI document is untyped JSON; the assertions are what check its shape. */
type Json = Record<string, any>;

async function openapi(): Promise<Json> {
  const app = await server();
  const doc = (await app.inject({ url: "/openapi.json" })).json();
  await app.close();
  return doc;
}

/** Follows a local `$ref` to its component. */
function deref(doc: Json, s: Json): Json {
  if (typeof s.$ref !== "string") return s;
  const name = s.$ref.replace("#/components/schemas/", "");
  assert.ok(doc.components.schemas[name], `component ${name}`);
  return doc.components.schemas[name];
}

void test("/openapi.json documents every route with its responses", async () => {
  const doc = await openapi();
  assert.match(doc.openapi, /^3\.1/);
  for (const [method, path] of ROUTES) {
    assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} documented`);
  }
  const documented = Object.values(doc.paths).flatMap((p) => Object.keys(p as object)).length;
  assert.equal(documented, ROUTES.length, "nothing undocumented, nothing extra");
  for (const name of [
    "Task",
    "Instance",
    "InstanceTree",
    "Completion",
    "Definition",
    "Problem",
    "AssigneeRequest",
    "NextAssignment",
  ]) {
    assert.ok(doc.components.schemas[name], `component ${name}`);
  }
  assert.deepEqual(doc.components.securitySchemes.apiKey, {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
  });
  assert.deepEqual(doc.paths["/healthz"].get.security, []);
  assert.deepEqual(doc.paths["/readyz"].get.security, []);
  assert.ok(doc.paths["/readyz"].get.responses["503"].content["application/problem+json"]);
  const actor = doc.paths["/v1/tasks"].get.parameters.find(
    (p: { name: string }) => p.name === "x-actor-id",
  );
  assert.equal(actor.required, true);
});

void test("every operation: summary, description, typed responses with examples, error codes", async () => {
  const doc = await openapi();
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const at = `${method.toUpperCase()} ${path}`;
      assert.ok(typeof op.summary === "string" && op.summary.length > 0, `${at}: summary`);
      assert.ok(
        typeof op.description === "string" && op.description.length > 0,
        `${at}: description`,
      );
      const statuses = Object.keys(op.responses);
      assert.ok(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${at}: a 2xx response`,
      );
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        assert.match(status, /^[1-5]\d\d$/, `${at}: ${status} is one status, not a range`);
        assert.notEqual(response.description, "Default Response", `${at} ${status}: described`);
        const [[type, media]] = Object.entries<Json>(response.content ?? {}) as [[string, Json]];
        assert.ok(media?.schema, `${at} ${status}: a schema`);
        assert.ok(media.example !== undefined, `${at} ${status}: an example`);
        if (status.startsWith("2")) {
          assert.equal(type, "application/json", `${at} ${status}`);
          continue;
        }
        assert.equal(type, "application/problem+json", `${at} ${status}`);
        const codes = deref(doc, media.schema).properties?.code?.enum as ProblemCode[];
        assert.ok(Array.isArray(codes) && codes.length > 0, `${at} ${status}: lists its codes`);
        for (const c of codes) assert.equal(statusOf(c), Number(status), `${at}: ${c}`);
        assert.ok(codes.includes(media.example.code), `${at} ${status}: the example's code`);
        assert.equal(media.example.status, Number(status));
      }
      if (path.startsWith("/v1/")) {
        for (const s of ["400", "401", "429", "500", "503"]) {
          assert.ok(op.responses[s], `${at}: ${s}`);
        }
      }
      if (method === "post" && path.startsWith("/v1/")) {
        assert.ok(op.responses["415"], `${at}: 415`);
        assert.ok(op.responses["413"], `${at}: 413`);
      }
      for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
        assert.ok(media.example !== undefined, `${at}: a request body example`);
      }
    }
  }
  const codesOf = (method: string, path: string, status: number) =>
    doc.paths[path][method].responses[status].content["application/problem+json"].schema.properties
      .code.enum;
  assert.deepEqual(codesOf("post", "/v1/tasks/{id}/complete", 409), [
    "NotOpen",
    "Conflict",
    "InProgress",
  ]);
  // Every POST takes Idempotency-Key and may answer its 409 InProgress and 422 Unprocessable.
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    const op = item.post;
    if (op === undefined) continue;
    const names = (op.parameters as Json[]).map((p: Json) => `${p.in}:${p.name}`);
    assert.ok(names.includes("header:idempotency-key"), `${path}: Idempotency-Key`);
    assert.ok(codesOf("post", path, 409).includes("InProgress"), `${path}: 409 InProgress`);
    assert.deepEqual(codesOf("post", path, 422), ["Unprocessable"], `${path}: 422`);
  }
  assert.deepEqual(codesOf("get", "/v1/runs/{id}", 404), ["NotFound"]);
  assert.equal(doc.paths["/v1/tasks"].get.responses["404"], undefined, "no 404 for a list");
});

void test("a run's input, output and error are documented, not {}", async () => {
  const doc = await openapi();
  const run = doc.paths["/v1/runs/{id}"].get.responses["200"].content["application/json"].schema;
  for (const field of ["input", "output"]) {
    assert.match(run.properties[field].description, /any JSON value/, field);
  }
  const error = run.properties.error;
  assert.deepEqual(error.type, ["object", "null"]);
  assert.deepEqual(Object.keys(error.properties).sort(), [
    "message",
    "name",
    "nonRetryable",
    "stack",
    "type",
  ]);
  const body = doc.paths["/v1/workflows/{name}/runs"].post.requestBody.content["application/json"];
  assert.match(body.schema.properties.input.description, /any JSON value/);
});

void test("info: the package's version, both halves described", async () => {
  const doc = await openapi();
  assert.equal(doc.info.version, PACKAGE_VERSION);
  assert.equal(doc.info.title, "TaskFlow API");
  assert.match(doc.info.description, /human-task inbox/i);
  assert.match(doc.info.description, /durable runs/i);
  // Found the same way from where the built server runs (dist/server/…), and never guessed.
  const fromDist = pathToFileURL(new URL("dist/server/openapi.js", ROOT).pathname).href;
  assert.equal(packageVersion(fromDist), PACKAGE_VERSION);
  assert.equal(packageVersion(pathToFileURL("/nowhere/server/openapi.js").href), UNKNOWN_VERSION);
});

void test("/docs is TaskFlow's: its title, its logo, no Fastify logo", async () => {
  const app = await server();
  const page = await app.inject({ url: "/docs/" });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<title>TaskFlow API<\/title>/);
  const init = await app.inject({ url: "/docs/static/swagger-initializer.js" });
  assert.equal(init.statusCode, 200);
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body);
  assert.ok(logo, "a logo replaces the top bar's");
  const svg = Buffer.from(logo[1]!, "base64").toString("utf8");
  assert.match(svg, /TaskFlow API/);
  assert.doesNotMatch(svg, /fastify/i);
  await app.close();
});

void test("the list filters are documented, each with a description and an example", async () => {
  const doc = await openapi();
  const filters: [string, string[]][] = [
    ["/v1/tasks", ["user", "group", "status"]],
    ["/v1/processes", ["state", "user", "createdAfter", "createdBefore"]],
    ["/v1/runs", ["status", "workflow", "startedBy", "createdAfter", "createdBefore"]],
  ];
  for (const [path, names] of filters) {
    const params: Json[] = doc.paths[path].get.parameters.filter((p: Json) => p.in === "query");
    for (const name of names) {
      const p = params.find((x) => x.name === name);
      assert.ok(p, `${path} ${name}`);
      assert.ok(typeof p.description === "string" && p.description.length > 10, `${path} ${name}`);
      assert.ok(p.example !== undefined, `${path} ${name}: an example`);
    }
  }
  const status = doc.paths["/v1/tasks"].get.parameters.find((p: Json) => p.name === "status");
  assert.deepEqual(status.schema.enum, ["open", "claimed", "completed", "cancelled", "all"]);
  const run = deref(
    doc,
    doc.paths["/v1/runs/{id}"].get.responses["200"].content["application/json"].schema,
  );
  assert.ok(run.required.includes("startedBy"));
});
