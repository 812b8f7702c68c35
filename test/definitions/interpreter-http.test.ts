/**
 * Published definitions through POST /v1/processes on the interpreter (real
 * engine, SQLite, `inject`): call/choice/end, a userTask with actions and a
 * form (a bad submission is a 400 and the task stays open), the process in the
 * inbox and the process list, and a plain key still a plain definition.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createTaskflow, type Taskflow } from "../../src/composition/create-taskflow.ts";
import { registerStep } from "../../src/engine/definitions/interpreter/step-registry.ts";
import { createTestDatabase } from "../support/backends.ts";

const KEY = "interp-key-0123456789abcdefghij";
let tf: Taskflow;
let drop: () => Promise<void>;
const actor = { tenantId: "default", actorId: "alice" };

before(async () => {
  registerStep("http-double", (input: any) => ({ doubled: input.n * 2 }));
  const db = await createTestDatabase({ name: "sqlite" });
  drop = () => db.drop();
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl: db.url, apiKeys: [KEY], logLevel: "silent", rateLimit: false },
  });
  tf = await createTaskflow(config);
});

after(async () => {
  await tf?.close();
  await drop?.();
});

async function call(method: "GET" | "POST", url: string, body?: object, as = "alice") {
  const r = await tf.server.inject({
    method,
    url,
    headers: { "x-api-key": KEY, "x-actor-id": as },
    ...(body === undefined ? {} : { payload: body }),
  });
  return { status: r.statusCode, body: r.json() };
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const finished = (runId: string) =>
  until(`run ${runId}`, async () => {
    const r = await tf.runs.get(actor.tenantId, runId);
    return ["completed", "failed", "cancelled"].includes(r.status) ? r : undefined;
  });

const openTasks = (user: string) =>
  until(`a task of ${user}`, async () => {
    const r = await call("GET", `/v1/tasks?user=${user}`);
    return r.body.items.length > 0 ? (r.body.items as any[]) : undefined;
  });

void describe("the interpreter behind POST /v1/processes", () => {
  test("call, choice, end: a pinned run that ends with its vars", async () => {
    await tf.definitions.publish(actor, "double", {
      key: "double",
      name: "Double",
      vars: { type: "object", required: ["n"], properties: { n: { type: "number" } } },
      start: "twice",
      states: {
        twice: {
          type: "call",
          step: "http-double",
          input: "{ 'n': vars.n }",
          resultVar: "r",
          next: "big",
        },
        big: {
          type: "choice",
          choices: [{ when: "vars.r.doubled > 10", next: "done" }],
          otherwise: "small",
        },
        small: { type: "terminate", reason: "too small" },
        done: { type: "end" },
      },
    });
    const r = await call("POST", "/v1/processes", { processKey: "double", vars: { n: 6 } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.definitionKey, "double");
    assert.equal(r.body.version, 1);
    assert.ok(r.body.instanceId);
    const run = await finished(r.body.runId);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, { vars: { n: 6, r: { doubled: 12 } } });

    const small = await call("POST", "/v1/processes", { processKey: "double", vars: { n: 1 } });
    const run2 = await finished(small.body.runId);
    assert.deepEqual(run2.output, { vars: { n: 1, r: { doubled: 2 } }, terminated: "too small" });

    const bad = await call("POST", "/v1/processes", { processKey: "double", vars: { n: "x" } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].pointer, "/vars/n");

    const missing = await call("POST", "/v1/processes", { processKey: "double", version: 9 });
    assert.equal(missing.status, 404);

    const list = await call("GET", "/v1/processes");
    assert.ok(
      list.body.items.some((p: any) => p.id === r.body.instanceId && p.definitionKey === "double"),
    );
  });

  test("userTask: actions pick next; a bad form is a 400 and the task stays open", async () => {
    await tf.definitions.publish(actor, "approval", {
      key: "approval",
      name: "Approval",
      start: "approve",
      states: {
        approve: {
          type: "userTask",
          assignee: { expr: "vars.approver" },
          title: "Approve {{ vars.amount }} EUR",
          form: {
            type: "object",
            required: ["comment"],
            properties: { comment: { type: "string" } },
            additionalProperties: false,
          },
          actions: { approve: { next: "ok" }, reject: { next: "no" } },
          resultVar: "decision",
        },
        ok: { type: "end" },
        no: { type: "terminate", reason: "rejected" },
      },
    });
    const r = await call("POST", "/v1/processes", {
      processKey: "approval",
      vars: { approver: "bob", amount: 120 },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const [task] = await openTasks("bob");
    assert.equal(task.rootInstanceId, r.body.instanceId);
    const tree = await call("GET", `/v1/instances/${r.body.instanceId}`);
    assert.equal(tree.body.children[0].vars.title, "Approve 120 EUR");

    const wrongForm = await call(
      "POST",
      `/v1/tasks/${task.id}/complete`,
      { action: "approve", vars: { comment: 5 } },
      "bob",
    );
    assert.equal(wrongForm.status, 400, JSON.stringify(wrongForm.body));
    assert.equal(wrongForm.body.code, "Validation");
    assert.equal(wrongForm.body.errors[0].pointer, "/vars/comment");
    const wrongAction = await call(
      "POST",
      `/v1/tasks/${task.id}/complete`,
      { action: "maybe", vars: { comment: "hm" } },
      "bob",
    );
    assert.equal(wrongAction.status, 400);
    assert.equal(wrongAction.body.errors[0].pointer, "/action");
    const noAction = await call(
      "POST",
      `/v1/tasks/${task.id}/complete`,
      { vars: { comment: "hm" } },
      "bob",
    );
    assert.equal(noAction.status, 400);
    const still = await call("GET", `/v1/tasks/${task.id}`);
    assert.equal(still.body.status, "open");

    const good = await call(
      "POST",
      `/v1/tasks/${task.id}/complete`,
      { action: "reject", vars: { comment: "too much" } },
      "bob",
    );
    assert.equal(good.status, 200, JSON.stringify(good.body));
    const run = await finished(r.body.runId);
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, {
      vars: {
        approver: "bob",
        amount: 120,
        decision: {
          action: "reject",
          comment: null,
          completedBy: "bob",
          data: { comment: "too much" },
        },
      },
      terminated: "rejected",
    });
  });

  test("respond: awaitResponse answers on this node; a retracted version is a 409", async () => {
    await tf.definitions.publish(actor, "hook", {
      key: "hook",
      name: "Hook",
      start: "ack",
      states: {
        ack: { type: "respond", status: 202, body: "{ 'id': $runId }", next: "wait" },
        wait: { type: "waitSignal", signal: "go", next: "e" },
        e: { type: "end" },
      },
    });
    const s = await tf.definitionRuns.start(actor, { key: "hook", vars: {} });
    const answer = await tf.definitionRuns.awaitResponse(actor.tenantId, s.runId, 5_000);
    assert.deepEqual(answer, { status: 202, body: { id: s.runId } });
    await tf.definitions.retract(actor, "hook", 1);
    const r = await call("POST", "/v1/processes", { processKey: "hook", version: 1 });
    assert.equal(r.status, 409, JSON.stringify(r.body));
    const latest = await call("POST", "/v1/processes", { processKey: "hook" });
    assert.equal(latest.status, 201, "no published version left: a plain start");
    assert.equal(latest.body.runId, undefined);
  });

  test("a key without a published version stays a plain definition", async () => {
    const r = await call("POST", "/v1/processes", { processKey: "plain-one", name: "Plain" });
    assert.equal(r.status, 201);
    assert.equal(r.body.runId, undefined);
    assert.equal(r.body.definitionKey, "plain-one");
  });
});
