/**
 * With the static directory, a run cannot be started by an actor it does not
 * know: the start is a 400 naming X-Actor-Id and no run is created, instead of
 * a run that starts and then fails with "X-Actor-Id: unknown user" from inside
 * the workflow (where no request header is involved) — over REST and from the
 * library alike, since the check is the runs use case's. The real composition:
 * createTaskflow with a worker on every node, on every deployment of
 * test/support/deployment.ts (one SQLite node; two MariaDB nodes).
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { workflow } from "../../src/workflow.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "actor-key-0123456789abcdefghijkl";
const approval = workflow("approval", async (ctx) => {
  await ctx.humanTask("approve", { assignee: { kind: "user", id: "bob" } });
  return "approved";
});

for (const kind of deployments) {
  void describe(`run start actor on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    // The static directory alice and bob, a worker on every node.
    let deployment: Deployment;
    before(async () => {
      deployment = await kind.start(
        { apiKeys: [KEY], logLevel: "silent", users: "alice,bob" },
        { workflows: [approval], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
    });
    after(() => deployment?.close());

    void test("POST /v1/workflows/{name}/runs refuses an actor the static directory does not know", async () => {
      const call = (method: "GET" | "POST", url: string, actor = "alice") =>
        deployment.inject({ method, url, headers: { "x-api-key": KEY, "x-actor-id": actor } });
      const refused = await call("POST", "/v1/workflows/approval/runs", "zed");
      assert.equal(refused.statusCode, 400, refused.body);
      const p = refused.json<{ code: string; detail: string }>();
      assert.equal(p.code, "Validation");
      assert.equal(p.detail, "X-Actor-Id: unknown user 'zed'");
      assert.deepEqual((await call("GET", "/v1/runs")).json(), {
        items: [],
        nextCursor: null,
      });

      const started = await call("POST", "/v1/workflows/approval/runs");
      assert.equal(started.statusCode, 201, started.body);
      const { runId } = started.json<{ runId: string }>();
      let run: { status?: string; error?: unknown } = {};
      // Up to 20 s: the machine running the suite may be busy.
      for (let i = 0; i < 800 && run.status !== "waiting"; i++) {
        await sleep(25);
        run = (await call("GET", `/v1/runs/${runId}`)).json();
      }
      assert.equal(run.status, "waiting", JSON.stringify(run));
      assert.equal(run.error, null);
    });

    void test("embedded runs.start by an actor the directory does not know is refused the same way, and starts nothing", async () => {
      const node = deployment.nodes[0]!;
      // No route in front of the library call: the use case itself refuses the actor.
      await assert.rejects(node.runs.start("default", "approval", { startedBy: "zed" }), {
        code: "Validation",
        message: "X-Actor-Id: unknown user 'zed'",
      });
      const runs = await node.runs.list("default", { startedBy: "zed" });
      assert.deepEqual(runs.items, []);
    });
  });
}
