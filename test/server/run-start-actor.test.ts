/**
 * With the static directory, a run cannot be started by an actor it does not
 * know: the start is a 400 naming X-Actor-Id and no run is created, instead of
 * a run that starts and then fails with "X-Actor-Id: unknown user" from inside
 * the workflow (where no request header is involved). The real composition:
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

    void test("embedded runs.start by an actor the directory does not know: the run fails naming the starter, never a header", async () => {
      // Started on the first node, read on the last: on two nodes either worker may fail it.
      const first = deployment.nodes[0]!;
      const last = deployment.nodes[deployment.nodes.length - 1]!;
      // The library call has no route in front of it to refuse the actor.
      const { run: started } = await first.runs.start("default", "approval", {
        startedBy: "zed",
      });
      let run = await last.runs.get("default", started.id);
      for (let i = 0; i < 800 && run?.status !== "failed"; i++) {
        await sleep(25);
        run = await last.runs.get("default", started.id);
      }
      assert.equal(run?.status, "failed", JSON.stringify(run));
      const message = (run?.error as { message?: string } | null)?.message ?? "";
      assert.match(message, /started by 'zed', whom the directory \(WF_USERS\) does not know/);
      assert.doesNotMatch(message, /X-Actor-Id/);
    });
  });
}
