/**
 * The four-eyes rule, the same whichever way a task is made, on every backend,
 * over HTTP: a REST assignment, a code workflow's `ctx.humanTask` and a
 * definition's `userTask` can exclude named users, the process's starter, or
 * whoever completed an earlier task of the process. An excluded user's claim
 * and completion are 403 ExcludedFromTask with the reason, and the task stays
 * as it was for someone else to finish.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { startTestTaskflow, type TestNode } from "../support/test-taskflow.ts";

const KEY = "four-eyes-key-0123456789abcdefghij";

/** Prepare, then check: the checker may not be whoever prepared. */
const payment = workflow("payment", async (ctx) => {
  const group = { kind: "group" as const, id: "finance" };
  const prepared = await ctx.humanTask("prepare", { assignee: group });
  const checked = await ctx.humanTask("check", {
    assignee: group,
    exclude: { earlierCompleters: true },
  });
  return [prepared.completedBy, checked.completedBy];
});

for (const b of backends) {
  void describe(`the four-eyes rule over HTTP on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let node: TestNode;
    before(async () => {
      node = await startTestTaskflow(
        b,
        KEY,
        {
          maxEventLoopDelay: 0,
          users: "alice,bob,carol,dave",
          groups: { finance: ["alice", "bob", "carol"] },
        },
        { workflows: [payment], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
    });
    after(() => node?.close());

    /**
     * Refused with the reason: a claim; a completion too, for a user task (an
     * unclaimed group task is refused its completion first by its state, 409).
     */
    const refused = async (taskId: string, as: string, why: RegExp, steps = ["claim"]) => {
      for (const step of steps) {
        const r = await node.call("POST", `/v1/tasks/${taskId}/${step}`, {}, as);
        assert.equal(r.status, 403, `${step} by ${as}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.reason, "ExcludedFromTask");
        assert.match(r.body.detail, why);
      }
    };
    const claimAndComplete = async (taskId: string, as: string) => {
      assert.equal((await node.call("POST", `/v1/tasks/${taskId}/claim`, {}, as)).status, 200);
      const done = await node.call("POST", `/v1/tasks/${taskId}/complete`, {}, as);
      assert.equal(done.status, 200, JSON.stringify(done.body));
    };
    async function groupTask(filter: (t: any) => boolean): Promise<any> {
      for (const end = Date.now() + 20_000; Date.now() < end;) {
        const r = await node.call("GET", "/v1/tasks?group=finance&limit=200", undefined, "bob");
        const hit = (r.body.items as any[]).find(filter);
        if (hit !== undefined) return hit;
        await new Promise((res) => setTimeout(res, 25));
      }
      throw new Error("no such task in the finance inbox");
    }

    void test("a REST assignment: the starter, earlier completers and named users are refused", async () => {
      const root = await node.call("POST", "/v1/processes", { processKey: "expenses" }, "alice");
      assert.equal(root.status, 201, JSON.stringify(root.body));
      const parentInstanceId = root.body.instanceId as string;
      const first = await node.call(
        "POST",
        "/v1/assignments",
        {
          parentInstanceId,
          assignee: { kind: "group", id: "finance" },
          exclude: { starter: true },
        },
        "alice",
      );
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(first.body.task.exclude, {
        users: [],
        starter: true,
        earlierCompleters: false,
      });
      await refused(first.body.task.id, "alice", /started its process/);
      const still = await node.call("GET", `/v1/tasks/${first.body.task.id}`);
      assert.deepEqual([still.body.status, still.body.claimedBy], ["open", null]);
      await claimAndComplete(first.body.task.id, "bob");

      const second = await node.call(
        "POST",
        "/v1/assignments",
        {
          parentInstanceId,
          assignee: { kind: "group", id: "finance" },
          exclude: { earlierCompleters: true, users: ["carol"] },
        },
        "alice",
      );
      await refused(second.body.task.id, "bob", /completed an earlier task/);
      await refused(second.body.task.id, "carol", /excludes them by name/);
      // Alice started the process, but this rule does not exclude the starter.
      await claimAndComplete(second.body.task.id, "alice");

      // A user task whose own assignee is excluded: neither claim nor completion.
      const own = await node.call(
        "POST",
        "/v1/assignments",
        { parentInstanceId, assignee: { kind: "user", id: "dave" }, exclude: { users: ["dave"] } },
        "alice",
      );
      await refused(own.body.task.id, "dave", /excludes them by name/, ["claim", "complete"]);
      const open = await node.call("GET", `/v1/tasks/${own.body.task.id}`);
      assert.equal(open.body.status, "open");
    });

    void test("ctx.humanTask: whoever prepared may not check", async () => {
      const run = await node.call("POST", "/v1/workflows/payment/runs", { id: `pay-${b.name}` });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const prepare = await groupTask((t) => t.title === "prepare");
      await claimAndComplete(prepare.id, "carol");
      const check = await groupTask((t) => t.title === "check");
      assert.deepEqual(check.exclude, { users: [], starter: false, earlierCompleters: true });
      await refused(check.id, "carol", /completed an earlier task/);
      await claimAndComplete(check.id, "bob");
      for (const end = Date.now() + 20_000; ;) {
        const r = await node.call("GET", `/v1/runs/pay-${b.name}`);
        if (r.body.status === "completed") {
          assert.deepEqual(r.body.output, ["carol", "bob"]);
          break;
        }
        assert.ok(Date.now() < end, JSON.stringify(r.body));
        await new Promise((res) => setTimeout(res, 25));
      }
    });

    void test("a definition's userTask: its starter may not approve their own request", async () => {
      const actor = { tenantId: "default", actorId: "alice" };
      await node.tf.definitions.publish(actor, "leave", {
        key: "leave",
        name: "Leave",
        start: "approve",
        states: {
          approve: {
            type: "userTask",
            assignee: { group: "finance" },
            title: "Approve the leave of {{ vars.who }}",
            exclude: { starter: true },
            next: "done",
          },
          done: { type: "end" },
        },
      });
      const r = await node.call(
        "POST",
        "/v1/processes",
        { processKey: "leave", vars: { who: "carol" } },
        "carol",
      );
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const t = await groupTask((x) => x.title === "Approve the leave of carol");
      await refused(t.id, "carol", /started its process/);
      await claimAndComplete(t.id, "alice");
    });

    void test("a malformed rule is a 400 naming it, and nothing is written", async () => {
      for (const exclude of [{ starter: "yes" }, { users: "bob" }, { managers: true }]) {
        const r = await node.call("POST", "/v1/assignments", {
          definitionKey: "refused",
          assignee: { kind: "user", id: "dave" },
          exclude,
        });
        assert.equal(r.status, 400, `${JSON.stringify(exclude)}: ${JSON.stringify(r.body)}`);
        assert.match(JSON.stringify(r.body), /exclude|managers/);
      }
      await assert.rejects(
        node.tf.engine.assign(
          { tenantId: "default", actorId: "alice" },
          {
            definitionKey: "lib",
            assignee: { kind: "user", id: "dave" },
            exclude: { starter: 1 } as any,
          },
        ),
        { reason: "InvalidTaskDetails", message: /exclude\.starter/ },
      );
      const dave = (await node.call("GET", "/v1/tasks?user=dave&status=all", undefined, "dave"))
        .body.items as any[];
      assert.deepEqual(
        dave.filter((t) => t.definitionKey === "refused" || t.definitionKey === "lib"),
        [],
      );
    });
  });
}
