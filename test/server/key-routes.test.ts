/**
 * The /v1/keys routes end to end (createTaskflow, `inject`) on SQLite, on
 * PostgreSQL, and on the two-node MariaDB deployments (sql and Redis
 * coordination): a key created over REST works at once and is shown once,
 * the list never holds a secret, rotate and revoke take effect, bad input is
 * 400, an unknown id 404, a tenant-scoped key 403 (it must not mint an
 * unscoped one), and no secret reaches the log.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import type { InjectOptions } from "fastify";
import pino from "pino";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow } from "../../src/composition/create-taskflow.ts";
import { ApiKeys } from "../../src/engine/coordination/api-keys.ts";
import { backendTestOptions, createTestDatabase } from "../support/backends.ts";
import { deployments } from "../support/deployment.ts";
import type { InjectResponse } from "../../src/composition/taskflow-server.ts";

const KEY = "keys-admin-key-0123456789abcdefghij";

interface Target {
  name: string;
  skip: () => Promise<{ skip?: string }>;
  /** Starts the nodes with every log line written into `log`. */
  start(log: string[]): Promise<{
    inject(o: InjectOptions): Promise<InjectResponse>;
    keys: ApiKeys;
    close(): Promise<void>;
  }>;
}

function logInto(lines: string[]) {
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return pino({ level: "info" }, stream);
}

const targets: Target[] = [
  ...deployments.map((kind): Target => ({
    name: kind.name,
    skip: () => kind.testOptions(),
    async start(log) {
      const d = await kind.start(
        { apiKeys: [KEY], rateLimit: false, logLevel: "info" },
        { logger: logInto(log) },
      );
      return {
        inject: (o) => d.inject(o),
        keys: new ApiKeys(d.nodes[0]!.coordination),
        close: () => d.close(),
      };
    },
  })),
  {
    name: "postgres",
    skip: () => backendTestOptions({ name: "postgres" }),
    async start(log) {
      const db = await createTestDatabase({ name: "postgres" });
      const config = loadConfig({
        env: {},
        overrides: {
          databaseUrl: db.url,
          apiKeys: [KEY],
          rateLimit: false,
          logLevel: "info",
          maxEventLoopDelay: 0,
          addr: "127.0.0.1:0",
        },
      });
      const node = await createTaskflow(config, { logger: logInto(log) });
      return {
        inject: (o) => node.server.inject(o),
        keys: new ApiKeys(node.coordination),
        async close() {
          await node.close();
          await db.drop();
        },
      };
    },
  },
];

for (const target of targets) {
  void describe(`API key routes on ${target.name}`, async () => {
    const options = await target.skip();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    const log: string[] = [];
    let node: Awaited<ReturnType<Target["start"]>>;
    before(async () => {
      node = await target.start(log);
    });
    after(async () => {
      await node?.close();
    });

    const call = async (
      method: "GET" | "POST",
      url: string,
      body?: unknown,
      key = KEY,
      headers: Record<string, string> = {},
    ) => {
      const r = await node.inject({
        method,
        url,
        headers: { "x-api-key": key, ...headers },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      return { status: r.statusCode, body: r.json(), headers: r.headers };
    };

    test("create shows the secret once; it works at once; the list never shows it", async () => {
      const created = await call("POST", "/v1/keys", { name: "backend", tenant: "acme" });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.match(created.body.key, /^tfk_[A-Za-z0-9_-]{43}$/);
      assert.equal(created.body.tenant, "acme");
      assert.equal(created.headers["cache-control"], "no-store");
      const used = await call("GET", "/v1/definitions", undefined, created.body.key, {
        "x-tenant-id": "acme",
      });
      assert.equal(used.status, 200);
      const listed = await call("GET", "/v1/keys");
      assert.equal(listed.status, 200);
      const item = listed.body.items.find((k: any) => k.id === created.body.id);
      assert.deepEqual(Object.keys(item).sort(), [
        "createdAt",
        "expiresAt",
        "id",
        "name",
        "state",
        "tenant",
      ]);
      assert.equal(item.state, "live");
      const secret = created.body.key.slice(4);
      assert.ok(!JSON.stringify(listed.body).includes(secret), "no secret in the list");
      assert.ok(!log.join("").includes(secret), "no secret in the log");
      assert.ok(log.join("").includes(created.body.id), "the log names the key by id");
    });

    test("rotate: a new secret once, the old key revoked; revoke: the key stops working", async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const old = await call("POST", "/v1/keys", { name: "rotating", expiresAt });
      assert.equal(old.status, 201);
      assert.equal(old.body.tenant, null);
      const rotated = await call("POST", `/v1/keys/${old.body.id}/rotate`);
      assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
      assert.equal(rotated.body.replaces, old.body.id);
      assert.equal(rotated.body.name, "rotating");
      assert.notEqual(rotated.body.key, old.body.key);
      assert.ok(rotated.body.expiresAt !== null);
      // Neither key was presented before, so no node's 5 s cache answers for them.
      assert.equal((await call("GET", "/v1/keys", undefined, old.body.key)).status, 401);
      assert.notEqual(await node.keys.verify(rotated.body.key), null, "the new key is live");
      // Rotating a revoked key: no live key has the id.
      assert.equal((await call("POST", `/v1/keys/${old.body.id}/rotate`)).status, 404);

      const revoked = await call("POST", `/v1/keys/${rotated.body.id}/revoke`);
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.state, "revoked");
      assert.equal(revoked.body.key, undefined);
      assert.equal((await call("GET", "/v1/keys", undefined, rotated.body.key)).status, 401);
      // Again: nothing changes, the key is answered as it is.
      const again = await call("POST", `/v1/keys/${rotated.body.id}/revoke`);
      assert.equal(again.status, 200);
      assert.equal(again.body.state, "revoked");
      assert.ok(!log.join("").includes(rotated.body.key.slice(4)), "no secret in the log");
    });

    test("bad input is 400 problem+json; an unknown id is 404", async () => {
      for (const body of [
        {},
        { name: "" },
        { name: "x".repeat(129) },
        { name: "ok", tenant: "not a tenant" },
        { name: "ok", expiresAt: "tomorrow" },
        { name: "ok", expiresAt: "2020-01-01T00:00:00Z" },
        { name: "ok", tennant: "acme" },
        { name: "line\nbreak" },
      ]) {
        const r = await call("POST", "/v1/keys", body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.code, "Validation", JSON.stringify(body));
      }
      const unknown = "00000000-0000-4000-8000-000000000000";
      for (const action of ["revoke", "rotate"]) {
        const r = await call("POST", `/v1/keys/${unknown}/${action}`);
        assert.equal(r.status, 404, action);
        assert.equal(r.body.code, "NotFound");
        // An id that is not a UUID (a secret, say) is never looked up.
        const bad = await call("POST", `/v1/keys/tfk_${"A".repeat(43)}/${action}`);
        assert.equal(bad.status, 400, action);
      }
      const replayable = await call("POST", "/v1/keys", { name: "idem" }, KEY, {
        "idempotency-key": "k-1",
      });
      assert.equal(replayable.status, 400);
      assert.match(replayable.body.detail, /Idempotency-Key/);
    });

    test("a tenant-scoped key gets 403 on every key route; no key 401", async () => {
      const scoped = await node.keys.create({ name: "acme-backend", tenant: "default" });
      for (const [method, url, body] of [
        ["GET", "/v1/keys", undefined],
        ["POST", "/v1/keys", { name: "escalation" }],
        ["POST", `/v1/keys/${scoped.id}/revoke`, undefined],
        ["POST", `/v1/keys/${scoped.id}/rotate`, undefined],
      ] as const) {
        const r = await call(method, url, body, scoped.key);
        assert.equal(r.status, 403, url);
        assert.equal(r.body.code, "Forbidden");
      }
      const keys = await node.keys.list();
      assert.ok(!keys.some((k) => k.name === "escalation"), "no key was made");
      assert.equal(keys.find((k) => k.id === scoped.id)?.state, "live");
      const none = await node.inject({ method: "GET", url: "/v1/keys" });
      assert.equal(none.statusCode, 401);
      // An unscoped stored key may manage keys.
      const admin = await node.keys.create({ name: "admin" });
      assert.equal((await call("GET", "/v1/keys", undefined, admin.key)).status, 200);
    });

    test("/openapi.json documents the four routes", async () => {
      const r = await node.inject({ method: "GET", url: "/openapi.json" });
      const paths = r.json().paths as Record<string, any>;
      assert.ok(paths["/v1/keys"]?.get && paths["/v1/keys"]?.post);
      assert.ok(paths["/v1/keys/{id}/revoke"]?.post?.responses?.["404"]);
      assert.ok(paths["/v1/keys/{id}/rotate"]?.post?.responses?.["403"]);
    });
  });
}
