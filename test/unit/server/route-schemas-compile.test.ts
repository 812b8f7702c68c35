/**
 * The server compiles each route's schemas at the route's first use
 * (src/server/hooks/lazy-compilers.ts), so a schema that does not compile
 * would no longer stop the start: it would fail its first request. Here every
 * route family is built with Fastify's own eager compilation, which compiles
 * every validator and serialiser before `ready()` resolves and throws on the
 * first that fails — a broken schema fails this test, not a request.
 *
 * And lazily compiled functions are Fastify's own: the same requests answered
 * by an eager and a lazy server give the same status, headers and bodies
 * (a validation failure on query and body, a success, a missing key).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import type { Directory } from "../../../src/engine/directory-port.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { everyRouteFamily, KEY, sampleTask, stubEngine, testConfig } from "./stub-engine.ts";

function server(schemaCompilation: "lazy" | "eager") {
  const coordination = openCoordination({ kind: "memory", keyPrefix: "compile:" });
  const app = buildServer({
    engine: stubEngine({
      userInbox: () => Promise.resolve({ items: [sampleTask()], nextAfter: null }),
    }),
    config: testConfig(),
    ...everyRouteFamily(),
    coordination,
    directory: { userExists: () => Promise.resolve(true) } as unknown as Directory,
    schemaCompilation,
  });
  return {
    app,
    close: async () => {
      await app.close();
      await coordination.close();
    },
  };
}

void test("every route's schemas compile (eager compilation, as Fastify's default)", async () => {
  const { app, close } = server("eager");
  try {
    await app.ready();
    assert.ok(app.printRoutes().includes("tasks"), "the route families are registered");
  } finally {
    await close();
  }
});

void test("a lazily compiled route answers exactly as an eagerly compiled one", async () => {
  const headers = { "x-api-key": KEY, "x-actor-id": "alice" };
  const requests = [
    { method: "GET" as const, url: "/v1/tasks?limit=9999", headers },
    { method: "GET" as const, url: "/v1/tasks?nonsense=1", headers },
    { method: "GET" as const, url: "/v1/tasks", headers },
    { method: "GET" as const, url: "/v1/tasks" },
    {
      method: "POST" as const,
      url: "/v1/processes",
      headers: { ...headers, "content-type": "application/json" },
      payload: { definitionKey: 42 },
    },
  ];
  const eager = server("eager");
  const lazy = server("lazy");
  try {
    for (const request of requests) {
      const [e, l] = [await eager.app.inject(request), await lazy.app.inject(request)];
      const label = `${request.method} ${request.url}`;
      assert.equal(l.statusCode, e.statusCode, label);
      assert.equal(l.headers["content-type"], e.headers["content-type"], label);
      assert.equal(withoutIds(l.body), withoutIds(e.body), label);
      assert.ok(e.statusCode < 500, `${label}: ${e.body}`);
    }
  } finally {
    await eager.close();
    await lazy.close();
  }
});

/** A problem names its request's id, which differs between the two servers. */
const withoutIds = (body: string): string =>
  body.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>");
