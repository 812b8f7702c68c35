/**
 * Every route of docs/api.md end to end: the real engine and a real database
 * behind the Fastify app, driven with `inject`, on every deployment of
 * test/support/deployment.ts (one SQLite node; two MariaDB nodes without Redis;
 * the same two with Redis coordination), requests spread over the nodes.
 * Static directory: alice, bob, carol, dave; group clerks = bob, carol.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "e2e-key-0123456789abcdefghijkl";

for (const kind of deployments) {
  void describe(`routes on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let deployment: Deployment;

    before(async () => {
      deployment = await kind.start({
        apiKeys: [KEY],
        logLevel: "silent",
        users: "alice,dave",
        groups: { clerks: ["bob", "carol"] },
      });
    });

    after(async () => {
      await deployment?.close();
    });

    type Json = Record<string, any>;

    async function call(
      actor: string | null,
      method: "GET" | "POST",
      url: string,
      body?: unknown,
      extra: Record<string, string> = {},
    ): Promise<{ status: number; body: Json; type: string }> {
      const r = await deployment.inject({
        method,
        url,
        headers: { "x-api-key": KEY, ...(actor ? { "x-actor-id": actor } : {}), ...extra },
        ...(body !== undefined ? { payload: body as object } : {}),
      });
      return { status: r.statusCode, body: r.json(), type: String(r.headers["content-type"]) };
    }

    const start = async (actor = "alice", key = "leave") =>
      (await call(actor, "POST", "/v1/processes", { processKey: key })).body as {
        instanceId: string;
        definitionKey: string;
      };

    const assign = async (actor: string, body: Json) =>
      call(actor, "POST", "/v1/assignments", body);

    const TASK_FIELDS = [
      "action",
      "actionRequired",
      "actions",
      "assignedBy",
      "assignee",
      "claimedAt",
      "claimedBy",
      "comment",
      "completedAt",
      "completedBy",
      "createdAt",
      "definitionKey",
      "delegation",
      "description",
      "dueAt",
      "exclude",
      "followUpAt",
      "form",
      "formUi",
      "id",
      "instanceId",
      "overdue",
      "owner",
      "priority",
      "rootInstanceId",
      "status",
      "title",
      "vars",
    ];

    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

    void describe("processes", () => {
      void test("POST /v1/processes → 201; the actor comes from X-Actor-Id only", async () => {
        const r = await call("alice", "POST", "/v1/processes", {
          processKey: "expense",
          name: "Expense claim",
          vars: { amount: 12 },
          initiator: "mallory",
        });
        assert.equal(r.status, 201);
        assert.equal(r.body.definitionKey, "expense");
        const tree = await call(null, "GET", `/v1/instances/${r.body.instanceId}`);
        assert.equal(tree.body.startedBy, "alice");
        assert.deepEqual(tree.body.vars, { amount: 12 });
      });

      void test("GET /v1/processes: the actor's by default, by state, another user's with ?user=", async () => {
        const p = await start("dave", "proc-list");
        const mine = await call("dave", "GET", "/v1/processes?state=notStarted");
        assert.equal(mine.status, 200);
        assert.ok(mine.body.items.some((i: Json) => i.id === p.instanceId));
        assert.ok(mine.body.items.every((i: Json) => i.startedBy === "dave"));
        await assign("dave", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "user", id: "alice" },
        });
        const open = await call("alice", "GET", "/v1/processes?user=dave&state=open");
        assert.deepEqual(
          open.body.items.map((i: Json) => i.id),
          [p.instanceId],
        );
        assert.equal(
          (await call("dave", "GET", "/v1/processes?state=closed")).body.items.length,
          0,
        );
      });

      void test("pages with limit and cursor", async () => {
        const ids = [];
        for (let i = 0; i < 3; i++) ids.push((await start("carol", "paged")).instanceId);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const q: string = cursor ? `&cursor=${cursor}` : "";
          const page = await call("carol", "GET", `/v1/processes?limit=2${q}`);
          assert.equal(page.status, 200);
          assert.ok(page.body.items.length <= 2);
          seen.push(...page.body.items.map((i: Json) => i.id));
          cursor = page.body.nextCursor;
        } while (cursor);
        assert.deepEqual(seen, ids);
      });

      void test("an unknown actor is refused by the static directory (400)", async () => {
        const r = await call("mallory", "POST", "/v1/processes", { processKey: "x" });
        assert.equal(r.status, 400);
        assert.equal(r.body.code, "Validation");
      });
    });

    void describe("assignments", () => {
      void test("POST /v1/assignments → 201 { instanceId, task, tasks }; assignedBy is the actor", async () => {
        const p = await start();
        const r = await assign("alice", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "user", id: "bob" },
          vars: { days: 3 },
          assignedBy: "mallory",
        });
        assert.equal(r.status, 201);
        assert.deepEqual(Object.keys(r.body).sort(), ["instanceId", "task", "tasks"]);
        const t = r.body.task;
        assert.deepEqual(Object.keys(t).sort(), TASK_FIELDS);
        assert.deepEqual(t.assignee, { kind: "user", id: "bob" });
        assert.equal(t.assignedBy, "alice");
        assert.equal(t.status, "open");
        assert.equal(t.rootInstanceId, p.instanceId);
        assert.equal(t.instanceId, r.body.instanceId);
        assert.match(t.createdAt, ISO);
        assert.equal(t.claimedBy, null);
        assert.equal(t.completedAt, null);
      });

      void test("users → one user task per id", async () => {
        const p = await start();
        const r = await assign("alice", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "users", ids: ["bob", "carol", "bob"] },
        });
        assert.equal(r.status, 201);
        assert.deepEqual(
          r.body.tasks.map((t: Json) => t.assignee),
          [
            { kind: "user", id: "bob" },
            { kind: "user", id: "carol" },
          ],
        );
      });

      void test("unknown user or group → 400; unknown parent → 404; missing definition → 404", async () => {
        const p = await start();
        const bad = [
          { parentInstanceId: p.instanceId, assignee: { kind: "user", id: "mallory" } },
          { parentInstanceId: p.instanceId, assignee: { kind: "group", id: "nobody" } },
          { parentInstanceId: p.instanceId, assignee: { kind: "users", ids: [] } },
          { parentInstanceId: p.instanceId, assignee: { kind: "robot", id: "x" } },
          { assignee: { kind: "user", id: "bob" } },
        ];
        for (const body of bad)
          assert.equal((await assign("alice", body)).status, 400, JSON.stringify(body));
        const missingParent = await assign("alice", {
          parentInstanceId: "01900000-0000-7000-8000-000000000000",
          assignee: { kind: "user", id: "bob" },
        });
        assert.equal(missingParent.status, 404);
        const missingDef = await assign("alice", {
          definitionKey: "never-started",
          assignee: { kind: "user", id: "bob" },
        });
        assert.equal(missingDef.status, 404);
      });
    });

    void describe("tasks", () => {
      void test("GET /v1/tasks: own + groups' open tasks for a user; a group's with ?group=; not both", async () => {
        const p = await start();
        const u = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "user", id: "bob" },
          })
        ).body;
        const g = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "group", id: "clerks" },
          })
        ).body;
        const bobs = (await call("bob", "GET", "/v1/tasks?limit=500")).body.items.map(
          (t: Json) => t.id,
        );
        assert.ok(bobs.includes(u.task.id) && bobs.includes(g.task.id));
        const carols = (await call("carol", "GET", "/v1/tasks?limit=500")).body.items.map(
          (t: Json) => t.id,
        );
        assert.ok(carols.includes(g.task.id) && !carols.includes(u.task.id));
        const asked = (await call("alice", "GET", "/v1/tasks?user=bob&limit=500")).body.items.map(
          (t: Json) => t.id,
        );
        assert.deepEqual(asked, bobs);
        const group = (await call("alice", "GET", "/v1/tasks?group=clerks&limit=500")).body.items;
        assert.ok(
          group.every((t: Json) => t.assignee.kind === "group" && t.assignee.id === "clerks"),
        );
        assert.equal((await call("bob", "GET", "/v1/tasks?user=bob&group=clerks")).status, 400);
        assert.equal((await call(null, "GET", "/v1/tasks")).status, 400, "X-Actor-Id required");
      });

      void test("GET /v1/tasks/{id}; unknown → 404; another tenant → 404", async () => {
        const p = await start();
        const t = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "user", id: "bob" },
          })
        ).body.task;
        const r = await call(null, "GET", `/v1/tasks/${t.id}`);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body, t);
        assert.equal(
          (await call(null, "GET", "/v1/tasks/01900000-0000-7000-8000-000000000000")).status,
          404,
        );
        const other = await call(null, "GET", `/v1/tasks/${t.id}`, undefined, {
          "x-tenant-id": "acme",
        });
        assert.equal(other.status, 404);
      });

      void test("a user task: only its assignee completes it; twice → 409 NotOpen", async () => {
        const p = await start();
        const t = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "user", id: "bob" },
          })
        ).body.task;
        const wrong = await call("carol", "POST", `/v1/tasks/${t.id}/complete`, {});
        assert.equal(wrong.status, 403);
        assert.equal(wrong.body.code, "Forbidden");
        const done = await call("bob", "POST", `/v1/tasks/${t.id}/complete`, {
          vars: { ok: true },
          completedBy: "x",
        });
        assert.equal(done.status, 200);
        assert.deepEqual(Object.keys(done.body).sort(), ["completion", "joined", "next", "task"]);
        assert.equal(done.body.task.status, "done");
        assert.equal(done.body.task.completedBy, "bob");
        assert.match(done.body.task.completedAt, ISO);
        assert.deepEqual(done.body.task.vars, { ok: true });
        assert.equal(done.body.completion.allCompleted, true);
        assert.equal(done.body.next, null);
        const again = await call("bob", "POST", `/v1/tasks/${t.id}/complete`);
        assert.equal(again.status, 409);
        assert.equal(again.body.code, "NotOpen");
      });

      void test("a group task: claimed by a member, completed by the claimer; claim of non-open → 409", async () => {
        const p = await start();
        const t = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "group", id: "clerks" },
          })
        ).body.task;
        const url = (verb: string) => `/v1/tasks/${t.id}/${verb}`;
        assert.equal(
          (await call("carol", "POST", url("complete"))).status,
          409,
          "unclaimed → Conflict",
        );
        assert.equal((await call("dave", "POST", url("claim"))).status, 403, "non-member");
        const claimed = await call("carol", "POST", url("claim"), undefined, {
          "content-type": "application/json",
        });
        assert.equal(claimed.status, 200);
        assert.equal(claimed.body.status, "claimed");
        assert.equal(claimed.body.claimedBy, "carol");
        assert.match(claimed.body.claimedAt, ISO);
        const reclaim = await call("carol", "POST", url("claim"));
        assert.equal(reclaim.status, 409);
        assert.equal(reclaim.body.code, "NotOpen");
        assert.equal((await call("bob", "POST", url("claim"))).status, 409);
        const bobs = (await call("bob", "GET", "/v1/tasks?limit=500")).body.items.map(
          (x: Json) => x.id,
        );
        assert.ok(!bobs.includes(t.id), "a claimed group task leaves other members' inboxes");
        const carols = (await call("carol", "GET", "/v1/tasks?limit=500")).body.items.map(
          (x: Json) => x.id,
        );
        assert.ok(carols.includes(t.id), "and stays in the claimer's");
        assert.equal((await call("bob", "POST", url("release"))).status, 403);
        assert.equal((await call("bob", "POST", url("complete"))).status, 403);
        const released = await call("carol", "POST", url("release"));
        assert.equal(released.status, 200);
        assert.equal(released.body.status, "open");
        assert.equal(released.body.claimedBy, null);
        assert.equal((await call("carol", "POST", url("release"))).status, 409, "release of open");
        assert.equal((await call("bob", "POST", url("claim"))).status, 200);
        const done = await call("bob", "POST", url("complete"), { vars: { stamp: 1 } });
        assert.equal(done.status, 200);
        assert.equal(done.body.task.completedBy, "bob");
      });

      void test("complete with next assigns the next step under the same root", async () => {
        const p = await start();
        const t = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "user", id: "bob" },
          })
        ).body.task;
        const r = await call("bob", "POST", `/v1/tasks/${t.id}/complete`, {
          next: { assignee: { kind: "user", id: "dave" }, vars: { step: 2 } },
        });
        assert.equal(r.status, 200);
        assert.equal(r.body.next.task.assignee.id, "dave");
        assert.equal(r.body.next.task.assignedBy, "bob");
        assert.equal(r.body.next.task.rootInstanceId, p.instanceId);
        const bad = await call("dave", "POST", `/v1/tasks/${r.body.next.task.id}/complete`, {
          next: { assignee: { kind: "user", id: "mallory" } },
        });
        assert.equal(bad.status, 400, "next is checked");
      });

      void test("onAllCompleted joins after the last task of the referral", async () => {
        const p = await start();
        const a = await assign("alice", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "users", ids: ["bob", "dave"] },
          onAllCompleted: { assignee: { kind: "user", id: "alice" } },
        });
        const [tb, td] = a.body.tasks;
        const first = await call("bob", "POST", `/v1/tasks/${tb.id}/complete`);
        assert.equal(first.body.joined, null);
        assert.equal(first.body.completion.allCompleted, false);
        const last = await call("dave", "POST", `/v1/tasks/${td.id}/complete`);
        assert.equal(last.body.completion.allCompleted, true);
        assert.equal(last.body.joined.task.assignee.id, "alice");
        assert.equal(last.body.next.task.id, last.body.joined.task.id);
      });

      void test("complete-and-end closes the process and cancels the rest", async () => {
        const p = await start();
        const a = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "user", id: "bob" },
          })
        ).body.task;
        await assign("alice", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "group", id: "clerks" },
        });
        const r = await call("bob", "POST", `/v1/tasks/${a.id}/complete-and-end`, {
          vars: { final: true },
        });
        assert.equal(r.status, 200);
        assert.deepEqual(Object.keys(r.body).sort(), ["cancelled", "rootInstanceId", "task"]);
        assert.equal(r.body.cancelled, 1);
        assert.equal(r.body.rootInstanceId, p.instanceId);
        const root = await call(null, "GET", `/v1/instances/${p.instanceId}`);
        assert.equal(root.body.status, "completed");
        assert.equal(root.body.processState, "closed");
        const late = await assign("alice", {
          parentInstanceId: p.instanceId,
          assignee: { kind: "user", id: "bob" },
        });
        assert.equal(late.status, 409, "assigning under a completed process");
        assert.equal((await call("bob", "POST", `/v1/tasks/${a.id}/complete-and-end`)).status, 409);
      });
    });

    void describe("instances and definitions", () => {
      void test("GET /v1/instances/{id} → the tree; /completion → counts", async () => {
        const p = await start();
        const a = (
          await assign("alice", {
            parentInstanceId: p.instanceId,
            assignee: { kind: "users", ids: ["bob", "dave"] },
          })
        ).body;
        await call("bob", "POST", `/v1/tasks/${a.tasks[0].id}/complete`);
        const tree = await call(null, "GET", `/v1/instances/${p.instanceId}`);
        assert.equal(tree.status, 200);
        for (const f of [
          "id",
          "kind",
          "definitionKey",
          "parentInstanceId",
          "rootInstanceId",
          "status",
          "processState",
          "vars",
          "startedBy",
          "createdAt",
          "completedAt",
          "onAllCompleted",
          "joinedAt",
          "children",
          "tasks",
        ]) {
          assert.ok(f in tree.body, `instance has ${f}`);
        }
        assert.equal(tree.body.kind, "process");
        assert.equal(tree.body.children.length, 1);
        assert.equal(tree.body.children[0].id, a.instanceId);
        assert.equal(tree.body.children[0].tasks.length, 2);
        const c = await call(null, "GET", `/v1/instances/${a.instanceId}/completion`);
        assert.deepEqual(c.body, {
          instanceId: a.instanceId,
          allCompleted: false,
          total: 2,
          open: 1,
          claimed: 0,
          done: 1,
          cancelled: 0,
        });
        assert.equal(
          (await call(null, "GET", "/v1/instances/01900000-0000-7000-8000-000000000000")).status,
          404,
        );
        assert.equal(
          (await call(null, "GET", "/v1/instances/01900000-0000-7000-8000-000000000000/completion"))
            .status,
          404,
        );
      });

      void test("GET /v1/definitions and /v1/definitions/{key}", async () => {
        await start("alice", "def-a");
        const list = await call(null, "GET", "/v1/definitions?limit=500");
        assert.equal(list.status, 200);
        assert.ok(list.body.items.some((d: Json) => d.key === "def-a"));
        assert.equal(list.body.nextCursor, null);
        const one = await call(null, "GET", "/v1/definitions/def-a");
        assert.deepEqual(Object.keys(one.body).sort(), ["createdAt", "id", "key", "name"]);
        assert.equal(one.body.name, "def-a");
        const missing = await call(null, "GET", "/v1/definitions/nope");
        assert.equal(missing.status, 404);
        assert.match(missing.type, /^application\/problem\+json/);
      });
    });
  });
}
