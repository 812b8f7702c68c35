/**
 * The Console's engine proxy and its guards on real coordination (SQLite,
 * Redis), one node per backend: CSRF refusals with no side effect, the
 * browser's X-Actor-Id ignored, roles by route, a plain user's own lists,
 * the security headers on every answer, and the API key in no answer of the
 * suite (every `call` is scanned; the last test scans them all once more).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  API_KEY,
  assertNoKey,
  consoleTestOptions,
  logIn,
  ORIGIN,
  startConsoleNode,
  type Browser,
  type ConsoleBackend,
  type ConsoleNode,
} from "./support/console-node.ts";

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";

interface Task {
  id: string;
  status: string;
  claimedBy: string | null;
}

function suite(backend: ConsoleBackend) {
  describe(`console engine proxy on ${backend}`, async () => {
    const options = await consoleTestOptions(backend);
    if (options.skip !== undefined) {
      void it("skipped", options, () => undefined);
      return;
    }
    let node: ConsoleNode;
    const users: Record<string, Browser> = {};
    before(async () => {
      node = await startConsoleNode(backend);
      for (const u of ["bob", "carol", "dave"]) users[u] = await logIn(node, u);
    });
    after(() => node?.close());
    const as = (u: string) => users[u] ?? assert.fail(`${u} is not logged in`);

    /** A task for bob, assigned by alice through the engine's own API. */
    async function taskForBob(): Promise<Task> {
      const started = await node.engine({
        method: "POST",
        url: "/v1/processes",
        payload: { processKey: "leave" },
      });
      assert.equal(started.statusCode, 201, started.body);
      const assigned = await node.engine({
        method: "POST",
        url: "/v1/assignments",
        payload: {
          parentInstanceId: started.json<{ instanceId: string }>().instanceId,
          assignee: { kind: "user", id: "bob" },
        },
      });
      assert.equal(assigned.statusCode, 201, assigned.body);
      return assigned.json<{ task: Task }>().task;
    }
    const taskNow = async (id: string) =>
      (await node.engine({ method: "GET", url: `/v1/tasks/${id}` })).json<Task>();

    it("CSRF: a claim without the token, with another token, from a foreign origin or cross-site is 403 problem+json and claims nothing", async () => {
      const task = await taskForBob();
      const url = `/console/api/engine/tasks/${task.id}/claim`;
      const bob = as("bob");
      const attempts: Record<string, Record<string, string>> = {
        "no token": { ...bob.read(), origin: ORIGIN },
        "another login's token": { ...bob.write(), "x-csrf-token": as("carol").jar.tf_csrf ?? "" },
        "a made-up token": { ...bob.write(), "x-csrf-token": "AAAA" },
        "a foreign origin": { ...bob.write(), origin: "https://evil.example" },
        "cross-site": { ...bob.write(), "sec-fetch-site": "cross-site" },
        "neither Origin nor Sec-Fetch-Site": {
          cookie: bob.read().cookie ?? "",
          "x-csrf-token": bob.jar.tf_csrf ?? "",
        },
      };
      for (const [what, headers] of Object.entries(attempts)) {
        const r = await node.call({ method: "POST", url, headers });
        assert.equal(r.statusCode, 403, `${what}: ${r.body}`);
        assert.equal(r.headers["content-type"], "application/problem+json; charset=utf-8", what);
        assert.equal(r.json<{ code: string }>().code, "Forbidden", what);
        assert.equal((await taskNow(task.id)).status, "open", `${what}: nothing was claimed`);
      }
      const ok = await node.call({ method: "POST", url, headers: bob.write() });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.equal((await taskNow(task.id)).claimedBy, "bob");
    });

    it("the actor is the session's user: the browser's X-Actor-Id, X-Api-Key and X-Tenant-Id are dropped", async () => {
      const task = await taskForBob();
      const r = await node.call({
        method: "POST",
        url: `/console/api/engine/tasks/${task.id}/claim`,
        headers: {
          ...as("bob").write(),
          "x-actor-id": "alice",
          "x-api-key": "not-the-key-0123456789abcdef",
          "x-tenant-id": "other",
        },
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.json<Task>().claimedBy, "bob");
      // Started through the Console by carol while the browser claims to be alice.
      const started = await node.call({
        method: "POST",
        url: "/console/api/engine/processes",
        headers: { ...as("carol").write(), "x-actor-id": "alice" },
        payload: { processKey: "leave", initiator: "alice" },
      });
      assert.equal(started.statusCode, 201, started.body);
      const id = started.json<{ instanceId: string }>().instanceId;
      const tree = await node.engine({ method: "GET", url: `/v1/instances/${id}` });
      assert.equal(tree.json<{ startedBy: string }>().startedBy, "carol");
    });

    it("roles by route: a user gets 403 from operator routes, an operator from admin routes", async () => {
      const get = (u: string, path: string) =>
        node.call({ method: "GET", url: `/console/api/engine/${path}`, headers: as(u).read() });
      const post = (u: string, path: string) =>
        node.call({ method: "POST", url: `/console/api/engine/${path}`, headers: as(u).write() });
      const runs = await get("bob", "runs");
      assert.equal(runs.statusCode, 403, runs.body);
      assert.match(runs.json<{ detail: string }>().detail, /operator/);
      assert.equal((await post("bob", "admin/cache/mutations/m-1/complete")).statusCode, 403);
      assert.equal((await get("carol", "runs")).statusCode, 200);
      assert.equal((await get("dave", "runs")).statusCode, 200);
      const publish = await post("carol", "definitions/leave/publish");
      assert.equal(publish.statusCode, 403, publish.body);
      assert.match(publish.json<{ detail: string }>().detail, /admin/);
      // The admin passes the Console; the engine answers (no draft to publish).
      assert.equal((await post("dave", "definitions/nothing-here/publish")).statusCode, 404);
      const session = await node.call({
        method: "GET",
        url: "/console/api/session",
        headers: as("dave").read(),
      });
      assert.deepEqual(session.json<{ roles: string[] }>().roles, ["user", "operator", "admin"]);
    });

    it("a plain user reads their own inbox only; an operator may read another's", async () => {
      await taskForBob();
      const inbox = (u: string, q: string) =>
        node.call({ method: "GET", url: `/console/api/engine/tasks${q}`, headers: as(u).read() });
      const own = await inbox("bob", "");
      assert.equal(own.statusCode, 200, own.body);
      assert.ok(own.json<{ items: Task[] }>().items.length > 0);
      assert.equal((await inbox("bob", "?user=bob")).statusCode, 200);
      assert.equal((await inbox("bob", "?user=alice")).statusCode, 403);
      assert.equal((await inbox("bob", "?group=ops")).statusCode, 403);
      assert.equal((await inbox("bob", "?group=reviewers")).statusCode, 200);
      assert.equal((await inbox("carol", "?user=bob")).statusCode, 200);
    });

    it("routes outside the table and odd paths are not forwarded; without a login nothing is", async () => {
      const bob = as("bob");
      for (const path of ["hooks/x", "openapi.json", "tasks/..%2F..%2Fhealthz", "tasks/%2e%2e"]) {
        const r = await node.call({
          method: "GET",
          url: `/console/api/engine/${path}`,
          headers: bob.read(),
        });
        assert.ok([400, 404].includes(r.statusCode), `${path}: ${r.statusCode} ${r.body}`);
      }
      const anonymous = await node.call({ method: "GET", url: "/console/api/engine/tasks" });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(anonymous.json<{ code: string }>().code, "Unauthorized");
    });

    it("every Console answer has the security headers, errors and unknown routes included", async () => {
      const answers = [
        await node.call({ method: "GET", url: "/console/api/session", headers: as("bob").read() }),
        await node.call({ method: "GET", url: "/console/api/session" }),
        await node.call({ method: "GET", url: "/console/api/nothing" }),
        await node.call({
          method: "POST",
          url: "/console/api/auth/code",
          payload: { userId: "bob" },
        }),
        await node.call({
          method: "GET",
          url: "/console/api/engine/definitions",
          headers: as("bob").read(),
        }),
      ];
      assert.deepEqual(
        answers.map((r) => r.statusCode),
        [200, 401, 404, 403, 200],
      );
      for (const r of answers) {
        assert.equal(r.headers["content-security-policy"], CSP);
        assert.equal(r.headers["x-content-type-options"], "nosniff");
        assert.equal(r.headers["referrer-policy"], "same-origin");
      }
    });

    it("no answer of this suite carried the API key", () => {
      assert.ok(node.answers.length >= 30, `${node.answers.length} answers scanned`);
      for (const r of node.answers) assertNoKey(r);
      assert.ok(API_KEY.length > 24);
    });
  });
}

for (const backend of ["sqlite", "redis"] as const) suite(backend);
