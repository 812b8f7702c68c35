/**
 * The static directory (WF_USERS, WF_GROUP_<id>) is the use cases' to check,
 * the routes only hand on what they were asked: a named user or group, or
 * none — the actor's own list, which the use case checks as the X-Actor-Id.
 * The actor who starts a run is checked by its use case too (runs-api.test.ts;
 * over REST, test/server/use-case-rules.test.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigOverrides } from "../../../src/config/config.ts";
import type { DurableRuns, StartRunRequest } from "../../../src/engine/durable/runs-api.ts";
import { createDirectory } from "../../../src/adapters/directory/create-directory.ts";
import { HumanTaskEngine } from "../../../src/engine/human-tasks/human-task-engine.ts";
import type { TaskStore } from "../../../src/engine/human-tasks/task-store-port.ts";
import { buildServer } from "../../../src/server/build-server.ts";
import { authed, stubEngine, testConfig } from "./stub-engine.ts";
import { serverAdapters } from "../../support/server-adapters.ts";

const STATIC: ConfigOverrides = { users: "alice,bob", groups: { clerks: ["carol"] } };

async function server(overrides: ConfigOverrides = STATIC) {
  const asked: string[] = [];
  const started: StartRunRequest[] = [];
  const page = (what: string) => (_ctx: unknown, id: string | undefined) => {
    asked.push(`${what}:${id ?? "(the actor's)"}`);
    return Promise.resolve({ items: [], nextAfter: null });
  };
  const engine = stubEngine({
    userInbox: page("user"),
    groupInbox: page("group"),
    listProcesses: (_ctx, user) => page("processes")(_ctx, user),
  });
  const runs = {
    start: (_tenant: string, name: string, req: StartRunRequest) => {
      started.push(req);
      const run = { id: "r1", status: "pending", workflow: name };
      return Promise.resolve({ run, created: true });
    },
  } as unknown as DurableRuns;
  const config = testConfig(overrides);
  const app = buildServer({ engine, config, runs, ...serverAdapters(config) });
  await app.ready();
  return { app, asked, started };
}

void test("the routes hand the engine whose list was asked: a user, a group, or none (the actor's own)", async () => {
  const { app, asked } = await server();
  const get = (url: string, actor = "alice") => app.inject({ url, headers: authed(actor) });
  for (const url of ["/v1/tasks", "/v1/tasks?user=bob", "/v1/tasks?group=clerks"]) {
    assert.equal((await get(url, "zed")).statusCode, 200, url);
  }
  assert.equal((await get("/v1/processes", "zed")).statusCode, 200);
  assert.equal((await get("/v1/processes?user=bob")).statusCode, 200);
  const own = "(the actor's)";
  assert.deepEqual(asked, [
    `user:${own}`,
    "user:bob",
    "group:clerks",
    `processes:${own}`,
    "processes:bob",
  ]);
  await app.close();
});

void test("the actor's own inbox or process list, when the actor is unknown, is the engine's refusal naming X-Actor-Id, before any read", async () => {
  const directory = createDirectory({ users: ["alice", "bob"], groups: { clerks: ["carol"] } });
  // No store behind it: a refusal must come before the first read.
  const engine = new HumanTaskEngine({ store: {} as TaskStore, directory });
  const zed = { tenantId: "default", actorId: "zed" };
  const refused = { code: "Validation", message: "X-Actor-Id: unknown user 'zed'" };
  await assert.rejects(engine.userInbox(zed, undefined, { limit: 10 }), refused);
  await assert.rejects(engine.userInbox(zed, undefined, { limit: 10 }, "completed"), refused);
  await assert.rejects(engine.listProcesses(zed, undefined, undefined, { limit: 10 }), refused);
});

void test("a named user's or group's list is the use case's to check: the engine refuses one the directory does not know, before any read", async () => {
  const directory = createDirectory({ users: ["alice", "bob"], groups: { clerks: ["carol"] } });
  // No store behind it: a refusal must come before the first read.
  const engine = new HumanTaskEngine({ store: {} as TaskStore, directory });
  const ctx = { tenantId: "default", actorId: "alice" };
  const page = { limit: 10 };
  await assert.rejects(engine.userInbox(ctx, "zed", page), {
    code: "Validation",
    message: "user: unknown user 'zed'",
  });
  await assert.rejects(engine.groupInbox(ctx, "nobody", page), {
    code: "Validation",
    message: "group: unknown group 'nobody'",
  });
  await assert.rejects(engine.listProcesses(ctx, "zed", undefined, page), {
    code: "Validation",
    message: "user: unknown user 'zed'",
  });
});

void test("the open directory (no WF_USERS, no groups) accepts any id", async () => {
  const { app } = await server({});
  for (const url of ["/v1/tasks?user=zed", "/v1/tasks?group=any", "/v1/processes?user=zed"]) {
    assert.equal((await app.inject({ url, headers: authed("zed") })).statusCode, 200, url);
  }
  const r = await app.inject({
    method: "POST",
    url: "/v1/workflows/w/runs",
    headers: authed("zed"),
  });
  assert.equal(r.statusCode, 201, r.body);
  await app.close();
});
