/**
 * Idempotency-Key over HTTP through createTaskflow, on every coordination
 * backend (memory, SQLite, PostgreSQL, MariaDB, Redis): replays, a reused key
 * with another request, 20 concurrent requests with one key, a retryable
 * failure that is not stored, bad keys, and records per tenant and API key.
 * Rows are counted through the API (GET /v1/processes). The same cases run on
 * the two-node deployments of test/support/deployment.ts (MariaDB with sql
 * coordination, then Redis), requests spread over both nodes, so a replay or
 * a concurrent repeat may land on the node that did not run the first one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { FastifyInstance, InjectOptions } from "fastify";
import { loadConfig } from "../../src/config/load-config.ts";
import { UnavailableError } from "../../src/domain/unavailable.ts";
import { buildServer } from "../../src/server/build-server.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  openTestCoordination,
  type CoordinationBackendName,
} from "../coordination/support/coordination-backends.ts";
import { deployments, type Deployment } from "../support/deployment.ts";
import { stubEngine } from "../unit/server/stub-engine.ts";
import { coordinatedNodes, KEY, KEY2 } from "./support/coordinated-nodes.ts";
import { serverAdapters } from "../support/server-adapters.ts";
import type { InjectResponse } from "../../src/composition/taskflow-server.ts";

type Headers = Record<string, string>;
/** What the cases drive: one node's app, or a whole deployment's. */
interface Node {
  server: { inject(options: InjectOptions): Promise<InjectResponse> };
}
/** Runs a case against a node with nothing in it yet. */
type WithNode = (fn: (tf: Node) => Promise<void>) => Promise<void>;

const start = (tf: Node, body: object, headers: Headers = {}) =>
  tf.server.inject({
    method: "POST",
    url: "/v1/processes",
    headers: { "x-api-key": KEY, "x-actor-id": "alice", ...headers },
    payload: body,
  });

async function processCount(tf: Node, headers: Headers = {}): Promise<number> {
  const r = await tf.server.inject({
    url: "/v1/processes?limit=500",
    headers: { "x-api-key": KEY, "x-actor-id": "alice", ...headers },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json<{ items: unknown[] }>().items.length;
}

function assertProblem(r: InjectResponse, status: number, code: string): string {
  assert.equal(r.statusCode, status, r.body);
  assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
  const p = r.json<{ code: string; detail: string }>();
  assert.equal(p.code, code);
  return p.detail;
}

/** A fresh set of nodes per case, on one coordination backend. */
const onBackend =
  (backend: CoordinationBackendName): WithNode =>
  async (fn) => {
    const nodes = await coordinatedNodes(backend);
    try {
      await fn(await nodes.node());
    } finally {
      await nodes.close();
    }
  };

/**
 * One deployment for all cases (a start on MariaDB costs seconds); each case gets a
 * tenant of its own unless it names one, so it starts empty: tenants never share
 * processes nor Idempotency-Key records.
 */
function onDeployment(deployment: () => Deployment): WithNode {
  let cases = 0;
  return (fn) => {
    const tenant = `case-${++cases}`;
    return fn({
      server: {
        inject: (o) =>
          deployment().inject({
            ...o,
            headers: { "x-tenant-id": tenant, ...(o.headers as Headers) },
          }),
      },
    });
  };
}

function registerCases(withNode: WithNode, backend: CoordinationBackendName | null) {
  void it("a repeat is the first answer replayed, and creates nothing", () =>
    withNode(async (tf) => {
      const key = { "idempotency-key": "order-1" };
      const first = await start(tf, { processKey: "leave", vars: { days: 3 } }, key);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers["idempotent-replayed"], undefined);
      // Keys in another order are the same request (canonical JSON).
      const again = await start(tf, { vars: { days: 3 }, processKey: "leave" }, key);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.match(String(again.headers["content-type"]), /^application\/json/);
      assert.equal(again.body, first.body);
      assert.equal(await processCount(tf), 1);
      // Without the key, the same body starts another process.
      assert.equal((await start(tf, { processKey: "leave", vars: { days: 3 } })).statusCode, 201);
      assert.equal(await processCount(tf), 2);
    }));

  void it("the same key with another request is 422 Unprocessable and runs nothing", () =>
    withNode(async (tf) => {
      const key = { "idempotency-key": "order-2" };
      assert.equal((await start(tf, { processKey: "leave" }, key)).statusCode, 201);
      assertProblem(await start(tf, { processKey: "trip" }, key), 422, "Unprocessable");
      // Another actor is another request too.
      const asBob = await start(tf, { processKey: "leave" }, { ...key, "x-actor-id": "bob" });
      assertProblem(asBob, 422, "Unprocessable");
      const otherPath = await tf.server.inject({
        method: "POST",
        url: "/v1/tasks/no-such-task/claim",
        headers: { "x-api-key": KEY, "x-actor-id": "alice", ...key },
      });
      assertProblem(otherPath, 422, "Unprocessable");
      assert.equal(await processCount(tf), 1);
    }));

  void it("20 concurrent requests with one key: one runs, the rest are 409 InProgress or its replay", () =>
    withNode(async (tf) => {
      const key = { "idempotency-key": "burst" };
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => start(tf, { processKey: "leave" }, key)),
      );
      const ran = answers.filter((r) => r.statusCode === 201 && !r.headers["idempotent-replayed"]);
      assert.equal(ran.length, 1, answers.map((r) => r.statusCode).join(","));
      for (const r of answers) {
        if (r.statusCode === 409) assertProblem(r, 409, "InProgress");
        else assert.equal(r.body, ran[0]!.body, "a replay carries the one answer");
      }
      assert.equal(await processCount(tf), 1);
      const later = await start(tf, { processKey: "leave" }, key);
      assert.equal(later.headers["idempotent-replayed"], "true");
      assert.equal(later.body, ran[0]!.body);
    }));

  void it("an answer the route gave is kept, errors included (a 404 is replayed)", () =>
    withNode(async (tf) => {
      const claim = () =>
        tf.server.inject({
          method: "POST",
          url: "/v1/tasks/no-such-task/claim",
          headers: { "x-api-key": KEY, "x-actor-id": "alice", "idempotency-key": "claim-1" },
        });
      const first = await claim();
      assertProblem(first, 404, "NotFound");
      const again = await claim();
      assertProblem(again, 404, "NotFound");
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.equal(again.body, first.body);
    }));

  void it("a request refused before it ran (bad body) stores nothing: the key is still free", () =>
    withNode(async (tf) => {
      const key = { "idempotency-key": "fix-me" };
      assertProblem(await start(tf, { processKey: 5 }, key), 400, "Validation");
      assert.equal((await start(tf, { processKey: "leave" }, key)).statusCode, 201);
      assert.equal(await processCount(tf), 1);
    }));

  void it("a malformed key is 400 naming the header, and runs nothing", () =>
    withNode(async (tf) => {
      for (const bad of ["", "with space", "x".repeat(256), "caf\u00e9"]) {
        const r = await start(tf, { processKey: "leave" }, { "idempotency-key": bad });
        const detail = assertProblem(r, 400, "Validation");
        assert.match(detail, /idempotency-key/i, JSON.stringify(bad));
      }
      assert.equal(await processCount(tf), 0);
      const longest = await start(
        tf,
        { processKey: "leave" },
        { "idempotency-key": "x".repeat(255) },
      );
      assert.equal(longest.statusCode, 201, "255 characters are fine");
    }));

  void it("the record is per tenant and per API key", () =>
    withNode(async (tf) => {
      const key = { "idempotency-key": "shared-name" };
      const a = await start(tf, { processKey: "leave" }, key);
      const inAcme = await start(tf, { processKey: "leave" }, { ...key, "x-tenant-id": "acme" });
      const withKey2 = await start(tf, { processKey: "leave" }, { ...key, "x-api-key": KEY2 });
      for (const r of [a, inAcme, withKey2]) {
        assert.equal(r.statusCode, 201, r.body);
        assert.equal(r.headers["idempotent-replayed"], undefined, "each ran");
      }
      assert.equal(await processCount(tf), 2, "default tenant: one per API key");
      assert.equal(await processCount(tf, { "x-tenant-id": "acme" }), 1);
      const replay = await start(tf, { processKey: "leave" }, { ...key, "x-api-key": KEY2 });
      assert.equal(replay.body, withKey2.body);
      assert.equal(replay.headers["idempotent-replayed"], "true");
    }));

  const stubOnly =
    backend === null
      ? {
          skip: "a stub engine failing on demand behind one app; it runs on every coordination backend",
        }
      : {};
  void it(
    "a retryable answer (503, 500) is not stored: the retry runs, then is kept",
    stubOnly,
    async () => {
      if (backend === null) return;
      const c = await openTestCoordination(backend);
      let calls = 0;
      const failures: Error[] = [
        new UnavailableError("the database is unreachable"),
        new Error("a bug"),
      ];
      const engine = stubEngine({
        start: () => {
          calls++;
          const failure = failures.shift();
          if (failure) return Promise.reject(failure);
          return Promise.resolve({ definitionKey: "leave", instanceId: `i${calls}` });
        },
      });
      const config = loadConfig({
        env: {},
        overrides: { apiKeys: [KEY], logLevel: "silent", maxEventLoopDelay: 0 },
      });
      const app: FastifyInstance = buildServer({
        engine,
        config,
        coordination: c.coordination,
        directory: serverAdapters(config).directory,
      });
      try {
        const post = () =>
          app.inject({
            method: "POST",
            url: "/v1/processes",
            headers: { "x-api-key": KEY, "x-actor-id": "alice", "idempotency-key": "retry-me" },
            payload: { processKey: "leave" },
          });
        assertProblem(await post(), 503, "Unavailable");
        assertProblem(await post(), 500, "Internal");
        const ok = await post();
        assert.equal(ok.statusCode, 201, ok.body);
        assert.equal(ok.headers["idempotent-replayed"], undefined);
        const replay = await post();
        assert.equal(replay.headers["idempotent-replayed"], "true");
        assert.equal(replay.body, ok.body);
        assert.equal(calls, 3, "two failures ran again; the success only once");
      } finally {
        await app.close();
        await c.close();
      }
    },
  );
}

for (const backend of coordinationBackends) {
  void describe(
    `Idempotency-Key over HTTP: ${backend}`,
    await coordinationTestOptions(backend),
    () => registerCases(onBackend(backend), backend),
  );
}

// The one-node SQLite deployment is the sqlite entry above.
for (const kind of deployments.filter((k) => k.nodeCount > 1)) {
  void describe(`Idempotency-Key over HTTP: ${kind.name}`, await kind.testOptions(), () => {
    let deployment: Deployment;
    before(async () => {
      deployment = await kind.start({ apiKeys: [KEY, KEY2], logLevel: "silent" });
    });
    after(() => deployment?.close());
    registerCases(
      onDeployment(() => deployment),
      null,
    );
  });
}
