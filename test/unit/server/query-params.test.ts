import assert from "node:assert/strict";
import { test } from "node:test";
import type { DurableRuns } from "../../../src/engine/durable/runs-api.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { authed, stubEngine, testConfig } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

const emptyPage = () => Promise.resolve({ items: [], nextAfter: null });

async function server() {
  const runs = {
    list: () => Promise.resolve({ items: [], nextCursor: null }),
  } as unknown as DurableRuns;
  const engine = stubEngine({
    userInbox: emptyPage,
    groupInbox: emptyPage,
    listProcesses: emptyPage,
    listDefinitions: emptyPage,
  });
  const app = buildServer({ engine, config: testConfig(), runs, ...serverAdapters(testConfig()) });
  await app.ready();
  return app;
}

const LISTS = [
  ["/v1/tasks", "user=bob&status=completed&limit=5"],
  ["/v1/processes", "state=open&user=bob&createdAfter=2027-01-01T00:00:00Z&limit=5"],
  ["/v1/definitions", "limit=5"],
  [
    "/v1/runs",
    "status=running&workflow=w&startedBy=bob&createdAfter=2027-01-01T00:00:00Z" +
      "&createdBefore=2027-01-02T00:00:00%2B01:00&limit=5",
  ],
] as const;

void test("an unknown query parameter is a 400 naming it, on every list route", async () => {
  const app = await server();
  for (const [path, known] of LISTS) {
    const ok = await app.inject({ url: `${path}?${known}`, headers: authed() });
    assert.equal(ok.statusCode, 200, `${path}?${known}: ${ok.body}`);
    for (const bad of ["sort=asc", "limt=5", "user[x]=1", "created_after=2027-01-01T00:00:00Z"]) {
      const r = await app.inject({ url: `${path}?${known}&${bad}`, headers: authed() });
      assert.equal(r.statusCode, 400, `${path}?${bad}`);
      assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
      const p = r.json();
      assert.equal(p.code, "Validation");
      const name = bad.split("=")[0]!;
      assert.equal(p.detail, `unknown query parameter '${name}'`, `${path}?${bad}`);
    }
  }
  await app.close();
});

void test("GET /v1/tasks?status=done does not answer the open inbox: its name is completed", async () => {
  const app = await server();
  const r = await app.inject({ url: "/v1/tasks?status=done", headers: authed() });
  assert.equal(r.statusCode, 400);
  assert.equal(
    r.json().detail,
    "query parameter 'status' must be equal to one of the allowed values " +
      "(open, claimed, completed, cancelled, all)",
  );
  await app.close();
});
