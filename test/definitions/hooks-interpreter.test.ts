/**
 * /v1/hooks with the real interpreter behind it (hooks.e2e uses a test double
 * of DefinitionRuns): a trigger starts a durable run of the published
 * version, a `respond` state's answer reaches the HTTP caller, the run goes on
 * to a user task in the inbox; without `respond` the caller gets 202 and the
 * run finishes with the request's body, query and path parameters as vars.
 * SQLite, one node with its in-process worker.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { createTestDatabase } from "../support/backends.ts";

const KEY = "hooks-interp-key-0123456789abcdef";
let tf: Taskflow;
let drop: () => Promise<void>;
type Json = Record<string, any>;

async function call(
  method: "GET" | "POST" | "PUT",
  url: string,
  body?: unknown,
  actor = "alice",
): Promise<{ status: number; body: Json }> {
  const r = await tf.server.inject({
    method,
    url,
    headers: { "x-api-key": KEY, "x-actor-id": actor, "x-tenant-id": "t1" },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: r.statusCode, body: r.json() };
}

async function publish(doc: Json): Promise<void> {
  const r = await call("POST", `/v1/definitions/${String(doc.key)}/publish`, doc);
  assert.equal(r.status, 201, JSON.stringify(r.body));
}

async function finished(runId: string): Promise<Json> {
  for (let i = 0; i < 200; i++) {
    const r = await call("GET", `/v1/runs/${runId}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    if (r.body.status !== "running" && r.body.status !== "pending") return r.body;
    await sleep(25);
  }
  assert.fail(`run ${runId} did not finish`);
}

const orderIntake = {
  key: "order-intake",
  name: "Order intake",
  start: "accepted",
  triggers: [{ method: "POST", path: "/orders/{orderId}" }],
  states: {
    accepted: {
      type: "respond",
      status: 201,
      body: "{ 'order': vars.params.orderId, 'amount': vars.body.amount }",
      next: "review",
    },
    review: {
      type: "userTask",
      assignee: { user: "alice" },
      title: "Review order {{ vars.params.orderId }}",
      actions: { ok: { next: "done" } },
    },
    done: { type: "end" },
  },
};

const echo = (path: string, state: string) => ({
  key: "echo",
  name: "Echo",
  start: state,
  triggers: [{ method: "PUT", path }],
  states: { [state]: { type: "end" } },
});

before(async () => {
  const db = await createTestDatabase({ name: "sqlite" });
  drop = () => db.drop();
  const config = loadConfig({
    env: {},
    overrides: {
      databaseUrl: db.url,
      apiKeys: [KEY],
      logLevel: "silent",
      maxEventLoopDelay: 0,
      triggerResponseTimeout: 5_000,
    },
  });
  tf = await createTaskflow(config, { worker: { pollMs: 20 } });
  await publish(orderIntake);
  await publish(echo("/echo/{id}", "done"));
});

after(async () => {
  await tf?.close();
  await drop?.();
});

void describe("/v1/hooks on the interpreter", () => {
  test("a respond state answers the caller; the run goes on to the inbox", async () => {
    const r = await call("POST", "/v1/hooks/orders/A-42", { amount: 5 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body, { order: "A-42", amount: 5 });

    let task: Json | undefined;
    for (let i = 0; i < 200 && !task; i++) {
      const inbox = await call("GET", "/v1/tasks");
      task = (inbox.body.items as Json[]).find((t) => t.definitionKey === "order-intake");
      if (!task) await sleep(25);
    }
    assert.ok(task, "the review task reached alice's inbox");
    const done = await call("POST", `/v1/tasks/${String(task.id)}/complete`, { action: "ok" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
  });

  test("without respond: 202 with the ids; the run's vars are the request", async () => {
    const r = await call("PUT", "/v1/hooks/echo/7?tag=a", { hello: "world" });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.definitionKey, "echo");
    assert.equal(r.body.version, 1);
    const run = await finished(String(r.body.runId));
    assert.equal(run.status, "completed", JSON.stringify(run));
    assert.deepEqual(run.output.vars, {
      body: { hello: "world" },
      query: { tag: "a" },
      params: { id: "7" },
    });
  });

  test("publishing v2 with another route moves the table at once; v2 runs on v2", async () => {
    await publish(echo("/echo-v2/{id}", "finished"));
    assert.equal((await call("PUT", "/v1/hooks/echo/8", {})).status, 404);
    const r = await call("PUT", "/v1/hooks/echo-v2/8", {});
    assert.equal(r.status, 202, JSON.stringify(r.body));
    assert.equal(r.body.version, 2);
    assert.equal((await finished(String(r.body.runId))).status, "completed");
  });
});
