import assert from "node:assert/strict";
import { test } from "node:test";
import { stubServer } from "./stub-engine.ts";

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
  ["get", "/v1/instances/{id}"],
  ["get", "/v1/instances/{id}/completion"],
  ["get", "/v1/definitions"],
  ["get", "/v1/definitions/{key}"],
  ["get", "/healthz"],
  ["get", "/readyz"],
];

void test("/openapi.json documents every route with its responses", async () => {
  const app = await stubServer();
  const doc = (await app.inject({ url: "/openapi.json" })).json();
  assert.match(doc.openapi, /^3\.1/);
  for (const [method, path] of ROUTES) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method.toUpperCase()} ${path} documented`);
    const ok = Object.keys(op.responses).find((s) => s.startsWith("2"));
    assert.ok(ok && op.responses[ok].content, `${method} ${path} has a success schema`);
    if (path !== "/healthz" && path !== "/readyz") {
      assert.ok(op.responses["4XX"].content["application/problem+json"], `${path} problem`);
    }
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
  await app.close();
});
