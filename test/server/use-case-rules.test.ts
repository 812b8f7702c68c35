/**
 * The rules of a use case live in the engine, so REST and an embedding app get
 * the same answer, and they are checked in one order — state, permission,
 * input (issue 21, items 6, 10, 12 and 16). Real composition: createTaskflow on
 * SQLite with the static directory (alice, bob, carol; group clerks: carol),
 * every request through `inject`, every library call on the same node.
 *
 * - The engine's own workflows (`taskflow.…`) are not startable by callers:
 *   404 as for a name nobody serves, over REST and `taskflow.runs.start`.
 * - An actor the directory does not know starts nothing — a run, a published
 *   definition's process, a hook's run — whichever way it is asked.
 * - A finished task is 409 for everyone before the actor or the form is looked
 *   at; a stranger is 403 before the form; only then the form's 400.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { TaskflowError } from "../../src/domain/errors.ts";
import { workflow } from "../../src/workflow.ts";
import { startSqliteTaskflow, type SqliteNode } from "../support/sqlite-taskflow.ts";

const KEY = "rules-key-0123456789abcdefghijkl";
const TENANT = "default";
let tf: Taskflow;
let node: SqliteNode | undefined;

const idle = workflow("idle", async (ctx) => {
  await ctx.waitForSignal("go");
  return "done";
});

before(async () => {
  node = await startSqliteTaskflow(
    KEY,
    { users: "alice,bob,carol", groups: { clerks: ["carol"] }, triggerResponseTimeout: 0 },
    { workflows: [idle], worker: { pollMs: 20 } },
  );
  tf = node.tf;
  const alice = { tenantId: TENANT, actorId: "alice" };
  await tf.definitions.publish(alice, "leave", {
    key: "leave",
    name: "Leave",
    vars: {
      type: "object",
      required: ["days"],
      properties: { days: { type: "integer", minimum: 1 } },
    },
    start: "approve",
    states: {
      approve: {
        type: "userTask",
        assignee: { users: ["bob"] },
        title: "Approve",
        form: {
          type: "object",
          required: ["comment"],
          properties: { comment: { type: "string" } },
        },
        actions: { approve: { next: "done" } },
      },
      done: { type: "end" },
    },
  });
  await tf.definitions.publish(alice, "intake", {
    key: "intake",
    name: "Intake",
    triggers: [{ method: "POST", path: "/intake" }],
    start: "done",
    states: { done: { type: "end" } },
  });
});

after(async () => {
  await node?.close();
});

async function call(method: "GET" | "POST", url: string, as: string, body?: unknown) {
  const r = await tf.server.inject({
    method,
    url,
    headers: { "x-api-key": KEY, "x-actor-id": as },
    ...(body === undefined ? {} : { payload: body as object }),
  });
  return { status: r.statusCode, body: r.body === "" ? null : r.json() };
}

/** The library call's refusal, as { status, code, detail } to compare with the route's. */
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof TaskflowError, String(e));
    return { code: e.code, detail: e.message };
  }
  assert.fail("the call was not refused");
}

const problemOf = (r: { body: any }) => ({ code: r.body.code, detail: r.body.detail });

async function runCount(): Promise<number> {
  return (await tf.runs.list(TENANT, { limit: 500 })).items.length;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A process of `leave` for alice, and bob's open task of it. */
async function leaveTask(): Promise<string> {
  const started = await call("POST", "/v1/processes", "alice", {
    processKey: "leave",
    vars: { days: 2 },
  });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  return until("bob's task", async () => {
    const r = await call("GET", `/v1/instances/${started.body.instanceId}`, "alice");
    const task = r.body.children?.[0]?.tasks?.[0];
    return task?.id as string | undefined;
  });
}

void describe("the engine's own workflows are not public", () => {
  test("POST /v1/workflows/taskflow.definition-run/runs is a 404 like a name nobody serves, and starts nothing", async () => {
    const before = await runCount();
    const unknown = await call("POST", "/v1/workflows/nobody-serves-this/runs", "alice", {});
    assert.equal(unknown.status, 404);
    // The input the process route refuses with 400 (days: 0) would have run, unchecked.
    const input = { key: "leave", version: 1, vars: { days: 0 } };
    for (const name of ["taskflow.definition-run", "TaskFlow.Definition-Run", "taskflow.x"]) {
      const r = await call("POST", `/v1/workflows/${name}/runs`, "alice", { input });
      assert.equal(r.status, 404, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "NotFound");
      // Word for word the unknown name's answer: nothing tells the name is the engine's.
      assert.equal(r.body.detail, unknown.body.detail.replace("nobody-serves-this", name));
      const lib = await refusal(
        tf.runs.start(TENANT, name, { input, startedBy: "alice", id: `lib-${name}` }),
      );
      assert.deepEqual(lib, problemOf(r));
    }
    assert.equal(await runCount(), before, "no run was created");
    const viaProcess = await call("POST", "/v1/processes", "alice", {
      processKey: "leave",
      vars: { days: 0 },
    });
    assert.equal(viaProcess.status, 400, "the public way in checks the vars");
  });

  test("a definition's subProcess naming the engine's workflow fails its run, and starts no child", async () => {
    const alice = { tenantId: TENANT, actorId: "alice" };
    await tf.definitions.publish(alice, "sneaky", {
      key: "sneaky",
      name: "Sneaky",
      start: "inner",
      states: {
        inner: { type: "subProcess", workflow: "taskflow.definition-run", next: "done" },
        done: { type: "end" },
      },
    });
    const before = await runCount();
    const r = await call("POST", "/v1/processes", "alice", { processKey: "sneaky" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const run = await until("the run's end", async () => {
      const got = await tf.runs.get(TENANT, r.body.runId);
      return got.status === "failed" || got.status === "completed" ? got : undefined;
    });
    assert.equal(run.status, "failed");
    assert.match(JSON.stringify(run.error), /no known workflow: 'taskflow.definition-run'/);
    assert.equal(await runCount(), before + 1, "no child run");
  });

  test("workflow() refuses a name in the engine's namespace", () => {
    assert.throws(
      () => workflow("taskflow.mine", () => Promise.resolve(1)),
      (e: unknown) =>
        e instanceof TaskflowError && e.code === "Validation" && /reserved/.test(e.message),
    );
  });
});

void describe("an actor the directory does not know starts nothing, REST or library", () => {
  test("a run: POST /v1/workflows/{name}/runs and taskflow.runs.start", async () => {
    const before = await runCount();
    const r = await call("POST", "/v1/workflows/idle/runs", "zed", { input: 1 });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(problemOf(r), {
      code: "Validation",
      detail: "X-Actor-Id: unknown user 'zed'",
    });
    assert.deepEqual(
      await refusal(tf.runs.start(TENANT, "idle", { startedBy: "zed", input: 1 })),
      problemOf(r),
    );
    assert.equal(await runCount(), before, "no run was created");
    // The order: a workflow nobody serves is 404 before the actor; the actor before the input.
    assert.equal((await call("POST", "/v1/workflows/nope/runs", "zed", {})).status, 404);
    // (Over REST the route's schema refuses a malformed id first: HTTP's own input check.)
    const badInput = tf.runs.start(TENANT, "idle", { startedBy: "zed", id: "bad id!" });
    assert.equal((await refusal(badInput)).detail, "X-Actor-Id: unknown user 'zed'");
  });

  test("a published definition's process: POST /v1/processes and taskflow.definitionRuns.start", async () => {
    const before = await runCount();
    // Bad vars too: the actor is refused before the vars are looked at.
    const r = await call("POST", "/v1/processes", "zed", { processKey: "leave", vars: {} });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(problemOf(r), {
      code: "Validation",
      detail: "X-Actor-Id: unknown user 'zed'",
    });
    const lib = tf.definitionRuns.start(
      { tenantId: TENANT, actorId: "zed" },
      { key: "leave", vars: {} },
    );
    assert.deepEqual(await refusal(lib), problemOf(r));
    // A version that does not exist is 404 before the actor.
    const missing = await call("POST", "/v1/processes", "zed", { processKey: "leave", version: 9 });
    assert.equal(missing.status, 404);
    assert.equal(await runCount(), before, "no run was created");
  });

  test("a hook: POST /v1/hooks/… answers as POST /v1/processes does", async () => {
    const before = await runCount();
    const r = await call("POST", "/v1/hooks/intake", "zed", { n: 1 });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.deepEqual(problemOf(r), {
      code: "Validation",
      detail: "X-Actor-Id: unknown user 'zed'",
    });
    const viaProcess = await call("POST", "/v1/processes", "zed", { processKey: "intake" });
    assert.deepEqual(problemOf(viaProcess), problemOf(r));
    assert.equal(await runCount(), before, "no run was created");
    const ok = await call("POST", "/v1/hooks/intake", "alice", { n: 1 });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
  });

  test("a named user's or group's list: REST and the library refuse one the directory does not know alike", async () => {
    const ctx = { tenantId: TENANT, actorId: "alice" };
    const page = { limit: 10 };
    const cases = [
      ["/v1/tasks?user=zed", tf.engine.userInbox(ctx, "zed", page)],
      ["/v1/tasks?group=nobody", tf.engine.groupInbox(ctx, "nobody", page)],
      ["/v1/processes?user=zed", tf.engine.listProcesses(ctx, "zed", undefined, page)],
    ] as const;
    for (const [url, lib] of cases) {
      const r = await call("GET", url, "alice");
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(await refusal(lib), problemOf(r), url);
    }
  });

  test("a hook's query key __proto__ is a 400, and starts nothing", async () => {
    const before = await runCount();
    const r = await call("POST", "/v1/hooks/intake?__proto__=x", "alice", { n: 1 });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.code, "Validation");
    assert.match(r.body.detail, /__proto__/);
    assert.equal(await runCount(), before, "no run was created");
  });
});

void describe("a completion: state, then permission, then the form", () => {
  const complete = (taskId: string, as: string, body: unknown) =>
    call("POST", `/v1/tasks/${taskId}/complete`, as, body);
  const libComplete = (taskId: string, as: string, vars: Record<string, unknown>) =>
    refusal(tf.engine.complete({ tenantId: TENANT, actorId: as }, taskId, { vars }));
  const badForm = { action: "approve", vars: { comment: 5 } };
  const badFormVars = { action: "approve", comment: 5 };

  test("an open task: a stranger is 403 and an unknown actor 400 whatever the form; the assignee's bad form 400", async () => {
    const taskId = await leaveTask();
    const stranger = await complete(taskId, "carol", badForm);
    assert.equal(stranger.status, 403, JSON.stringify(stranger.body));
    assert.equal(stranger.body.code, "Forbidden");
    assert.deepEqual(await libComplete(taskId, "carol", badFormVars), problemOf(stranger));
    const unknown = await complete(taskId, "zed", badForm);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.detail, "X-Actor-Id: unknown user 'zed'");
    assert.deepEqual(await libComplete(taskId, "zed", badFormVars), problemOf(unknown));
    const form = await complete(taskId, "bob", badForm);
    assert.equal(form.status, 400);
    assert.equal(form.body.errors[0].pointer, "/vars/comment");
    assert.deepEqual(await libComplete(taskId, "bob", badFormVars), problemOf(form));
    const good = await complete(taskId, "bob", { action: "approve", vars: { comment: "ok" } });
    assert.equal(good.status, 200, JSON.stringify(good.body));
  });

  test("a done task is 409 NotOpen for everyone — assignee, stranger, unknown actor — whatever they send", async () => {
    const taskId = await leaveTask();
    const done = await complete(taskId, "bob", { action: "approve", vars: { comment: "ok" } });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    for (const as of ["bob", "carol", "zed"]) {
      const r = await complete(taskId, as, badForm);
      assert.equal(r.status, 409, `${as}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.code, "NotOpen");
      assert.deepEqual(await libComplete(taskId, as, badFormVars), problemOf(r), as);
      const andEnd = await call("POST", `/v1/tasks/${taskId}/complete-and-end`, as, {
        vars: { comment: 5 },
      });
      assert.equal(andEnd.status, 409, `${as}: ${JSON.stringify(andEnd.body)}`);
    }
  });

  test("a plain task (no definition): a done task's completion with a bad next or unstorable vars is 409, not 400", async () => {
    const alice = { tenantId: TENANT, actorId: "alice" };
    const root = await tf.engine.start(alice, { processKey: "plain" });
    const assigned = await tf.engine.assign(alice, {
      parentInstanceId: root.instanceId,
      assignee: { kind: "user", id: "bob" },
    });
    const taskId = assigned.task.id;
    await tf.engine.complete({ tenantId: TENANT, actorId: "bob" }, taskId, {});
    const next = { assignee: { kind: "user" as const, id: "nobody" } };
    for (const as of ["bob", "carol", "zed"]) {
      const r = await complete(taskId, as, { next });
      assert.equal(r.status, 409, `${as}: ${JSON.stringify(r.body)}`);
      const ctx = { tenantId: TENANT, actorId: as };
      assert.deepEqual(await refusal(tf.engine.complete(ctx, taskId, { next })), problemOf(r), as);
      // Over REST the body scan refuses a NUL before any use case; the library reaches the rules.
      const nul = await libComplete(taskId, as, { note: "a\u0000b" });
      assert.deepEqual(nul, problemOf(r), as);
    }
  });

  test("a claim: a task already claimed is 409 NotOpen before the actor is looked at", async () => {
    const alice = { tenantId: TENANT, actorId: "alice" };
    const root = await tf.engine.start(alice, { processKey: "plain" });
    const assigned = await tf.engine.assign(alice, {
      parentInstanceId: root.instanceId,
      assignee: { kind: "group", id: "clerks" },
    });
    const taskId = assigned.task.id;
    const outsider = await call("POST", `/v1/tasks/${taskId}/claim`, "bob");
    assert.equal(outsider.status, 403, "an open task: not a member");
    assert.equal((await call("POST", `/v1/tasks/${taskId}/claim`, "carol")).status, 200);
    for (const as of ["carol", "bob", "zed"]) {
      const r = await call("POST", `/v1/tasks/${taskId}/claim`, as);
      assert.equal(r.status, 409, `${as}: ${JSON.stringify(r.body)}`);
      const lib = await refusal(tf.engine.claim({ tenantId: TENANT, actorId: as }, taskId));
      assert.deepEqual(lib, problemOf(r), as);
    }
  });
});

void describe("decisions the routes made are the use cases' (issue 22, item 3)", () => {
  const shape = (o: object) => Object.keys(o).sort();

  test("POST /v1/processes and taskflow.processes.start pick the same: a run of a published key, else a plain process", async () => {
    const alice = { tenantId: TENANT, actorId: "alice" };
    const start = { processKey: "leave", vars: { days: 3 } };
    const rest = await call("POST", "/v1/processes", "alice", start);
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    const lib = await tf.processes.start(alice, start);
    assert.deepEqual(shape(lib), shape(rest.body));
    assert.equal(typeof lib.runId, "string", "a published key runs on the interpreter");
    assert.deepEqual(
      [lib.definitionKey, lib.version],
      [rest.body.definitionKey, rest.body.version],
    );

    const plain = { processKey: "never-published", name: "Plain" };
    const restPlain = await call("POST", "/v1/processes", "alice", plain);
    assert.equal(restPlain.status, 201, JSON.stringify(restPlain.body));
    const libPlain = await tf.processes.start(alice, plain);
    assert.deepEqual(shape(libPlain), shape(restPlain.body));
    assert.equal(libPlain.runId, undefined, "a key without a published version is a plain process");
  });

  test("POST /v1/processes and taskflow.processes.start refuse alike: a missing version, an unknown actor, bad vars", async () => {
    const cases = [
      ["alice", { processKey: "leave", version: 9, vars: { days: 1 } }],
      ["alice", { processKey: "never-published", version: 1 }],
      ["zed", { processKey: "leave", vars: { days: 1 } }],
      ["zed", { processKey: "never-published" }],
      ["alice", { processKey: "leave", vars: { days: 0 } }],
    ] as const;
    for (const [as, body] of cases) {
      const r = await call("POST", "/v1/processes", as, body);
      assert.ok(r.status >= 400, `${as} ${JSON.stringify(body)}: ${r.status}`);
      const lib = refusal(tf.processes.start({ tenantId: TENANT, actorId: as }, body));
      assert.deepEqual(await lib, problemOf(r), `${as} ${JSON.stringify(body)}`);
    }
  });

  test("the actor's own list (no user): REST and the library name an unknown actor as the X-Actor-Id alike", async () => {
    const zed = { tenantId: TENANT, actorId: "zed" };
    const page = { limit: 10 };
    const cases = [
      ["/v1/tasks", tf.engine.userInbox(zed, undefined, page)],
      ["/v1/tasks?status=completed", tf.engine.userInbox(zed, undefined, page, "completed")],
      ["/v1/processes", tf.engine.listProcesses(zed, undefined, undefined, page)],
    ] as const;
    for (const [url, lib] of cases) {
      const r = await call("GET", url, "zed");
      assert.equal(r.status, 400, `${url}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.detail, "X-Actor-Id: unknown user 'zed'", url);
      assert.deepEqual(await refusal(lib), problemOf(r), url);
    }
    // Without an actor in the context there is nobody's own list to read.
    const tenantOnly = tf.engine.userInbox({ tenantId: TENANT }, undefined, page);
    assert.equal((await refusal(tenantOnly)).code, "Validation");
  });

  test("the actor's own list (no user): REST and the library list the same tasks", async () => {
    await leaveTask();
    const bob = { tenantId: TENANT, actorId: "bob" };
    const r = await call("GET", "/v1/tasks?limit=100", "bob");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const lib = await tf.engine.userInbox(bob, undefined, { limit: 100 });
    assert.ok(lib.items.length > 0);
    assert.deepEqual(
      lib.items.map((t) => t.id),
      (r.body.items as { id: string }[]).map((t) => t.id),
    );
  });
});
