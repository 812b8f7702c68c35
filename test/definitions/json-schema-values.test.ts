/**
 * Values against tenant JSON Schemas over HTTP (real engine, SQLite, a
 * listening server): the cases — 10,000 `{}` items against
 * `items: { anyOf: [300 branches] }` (2 s and 3 million findings before),
 * and valid items matching only the last branch — answer quickly with a 413
 * naming the limit, and /healthz on fresh connections stays under a second
 * while they run; a failing value lists at most 100 findings; a 1 MB list of
 * simple records still starts.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { startSqliteTaskflow, type SqliteNode } from "../support/sqlite-taskflow.ts";

const KEY = "values-key-0123456789abcdefghij";
const actor = { tenantId: "default", actorId: "alice" };
let tf: Taskflow;
let port = 0;
let node: SqliteNode | undefined;

before(async () => {
  node = await startSqliteTaskflow(KEY, { bodyLimit: 4 * 1024 * 1024 });
  tf = node.tf;
  port = Number(new URL(await tf.server.listen({ host: "127.0.0.1", port: 0 })).port);
  const branches = Array.from({ length: 300 }, (_, i) => ({ required: [`x${i}`] }));
  await publish("wide", { type: "object", properties: { list: { items: { anyOf: branches } } } });
  await publish("records", {
    type: "object",
    properties: {
      list: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "name"],
          properties: {
            id: { type: "integer" },
            name: { type: "string" },
            ok: { type: "boolean" },
            n: { type: "number" },
          },
        },
      },
    },
  });
});

after(async () => {
  await node?.close();
});

const publish = (key: string, vars: object) =>
  tf.definitions.publish(actor, key, {
    key,
    name: key,
    vars,
    start: "done",
    states: { done: { type: "end" } },
  });

function post(
  path: string,
  body: unknown,
  method = "POST",
): Promise<{ status: number; body: any; ms: number }> {
  const payload = JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        headers: {
          "x-api-key": KEY,
          "x-actor-id": "alice",
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            ms: performance.now() - t0,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? payload : undefined);
  });
}

/** GET /healthz on a new connection, as a load balancer asks. */
function freshHealth(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(performance.now() - t0));
    });
    req.on("error", () => resolve(Number.POSITIVE_INFINITY));
  });
}

/** The starts, each sent twice at once, while /healthz is probed every 50 ms. */
async function whileProbing<T>(run: () => Promise<T>): Promise<{ out: T; slowest: number }> {
  const probes: Promise<number>[] = [];
  const timer = setInterval(() => probes.push(freshHealth()), 50);
  probes.push(freshHealth());
  try {
    const out = await run();
    return { out, slowest: Math.max(...(await Promise.all(probes))) };
  } finally {
    clearInterval(timer);
  }
}

void describe("values against tenant JSON Schemas: bounded whatever the value", () => {
  test("10,000 {} items against 300 anyOf branches: a quick 413, /healthz within 1 s", async () => {
    const list = Array.from({ length: 10_000 }, () => ({}));
    const { out, slowest } = await whileProbing(() =>
      Promise.all([1, 2].map(() => post("/v1/processes", { processKey: "wide", vars: { list } }))),
    );
    for (const r of out) {
      assert.equal(r.status, 413, JSON.stringify(r.body).slice(0, 400));
      assert.equal(r.body.code, "TooLarge");
      assert.match(r.body.detail, /the vars of 'wide' are too large to check.*1500000 units/);
      assert.ok(r.ms < 1_000, `answered in ${Math.round(r.ms)} ms`);
    }
    assert.ok(slowest < 1_000, `a /healthz took ${Math.round(slowest)} ms`);
  });

  test("10,000 items valid only by the last branch: a quick 413, /healthz within 1 s", async () => {
    const list = Array.from({ length: 10_000 }, () => ({ x299: 1 }));
    const { out, slowest } = await whileProbing(() =>
      Promise.all([1, 2].map(() => post("/v1/processes", { processKey: "wide", vars: { list } }))),
    );
    for (const r of out) {
      assert.equal(r.status, 413, JSON.stringify(r.body).slice(0, 400));
      assert.ok(r.ms < 1_000, `answered in ${Math.round(r.ms)} ms`);
    }
    assert.ok(slowest < 1_000, `a /healthz took ${Math.round(slowest)} ms`);
  });

  test("a failing value within the budget: at most 100 findings and a note", async () => {
    // 1,000 items: 600,000 units, above what lists every finding (300,000 findings).
    const r = await post("/v1/processes", {
      processKey: "wide",
      vars: { list: Array.from({ length: 1_000 }, () => ({})) },
    });
    assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 400));
    assert.ok(r.body.errors.length <= 101, `${r.body.errors.length} findings`);
    assert.match(r.body.errors.at(-1).reason, /only up to its first finding/);
    // 20 items: every finding collected (301 each), the first 100 listed, the rest counted.
    const small = await post("/v1/processes", {
      processKey: "wide",
      vars: { list: Array.from({ length: 20 }, () => ({})) },
    });
    assert.equal(small.status, 400);
    assert.equal(small.body.errors.length, 101);
    assert.match(small.body.errors[100].reason, /has \d+ more findings, not listed/);
  });

  test("a task's completion: the same bound, the task left open", async () => {
    const branches = Array.from({ length: 300 }, (_, i) => ({ required: [`x${i}`] }));
    await tf.definitions.publish(actor, "wide-form", {
      key: "wide-form",
      name: "wide-form",
      start: "it",
      states: {
        it: {
          type: "userTask",
          assignee: { user: "alice" },
          title: "Fill in",
          form: { type: "object", properties: { list: { items: { anyOf: branches } } } },
          next: "done",
        },
        done: { type: "end" },
      },
    });
    const r = await post("/v1/processes", { processKey: "wide-form", vars: {} });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    let task: { id: string } | undefined;
    for (let i = 0; i < 250 && task === undefined; i++) {
      const list = await post("/v1/tasks?user=alice", undefined, "GET");
      task = (list.body.items as { id: string; rootInstanceId: string }[]).find(
        (t) => t.rootInstanceId === r.body.instanceId,
      );
      if (task === undefined) await new Promise((res) => setTimeout(res, 20));
    }
    assert.ok(task, "the task was created");
    const list = Array.from({ length: 10_000 }, () => ({}));
    const done = await post(`/v1/tasks/${task.id}/complete`, { vars: { list } });
    assert.equal(done.status, 413, JSON.stringify(done.body).slice(0, 400));
    assert.match(done.body.detail, /the completion's vars are too large to check/);
    assert.ok(done.ms < 1_000, `answered in ${Math.round(done.ms)} ms`);
    const after = await post(`/v1/tasks/${task.id}`, undefined, "GET");
    assert.equal(after.body.status, "open");
  });

  test("a 1 MB list of simple records starts", async () => {
    const list = Array.from({ length: 22_000 }, (_, i) => ({
      id: i,
      name: `name${i}`,
      ok: true,
      n: 1.5,
    }));
    assert.ok(JSON.stringify(list).length > 1_000_000);
    const r = await post("/v1/processes", { processKey: "records", vars: { list } });
    assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 400));
  });
});
