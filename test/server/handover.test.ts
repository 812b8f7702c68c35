/**
 * Delegation and reassignment, the same whichever way a task is made, on
 * every backend, over HTTP: a REST assignment (to a user, to a group whose
 * claimer delegates), a code workflow's `ctx.humanTask` and a definition's
 * `userTask`. A delegated task goes to the delegate, nobody completes it while
 * it is pending, the delegate resolves it back to its owner, who completes it;
 * a reassigned task is open for its new assignee and its former one can no
 * longer complete it. Every step is in the task's trail, by its actor.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { startTestTaskflow, type TestNode } from "../support/test-taskflow.ts";

const KEY = "handover-key-0123456789abcdefghijk";

const review = workflow("review", async (ctx) => {
  const r = await ctx.humanTask("review", { assignee: { kind: "user", id: "bob" } });
  return r.completedBy;
});

for (const b of backends) {
  void describe(`delegation and reassignment over HTTP on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let node: TestNode;
    let root: string;
    before(async () => {
      node = await startTestTaskflow(
        b,
        KEY,
        {
          maxEventLoopDelay: 0,
          users: "alice,bob,carol,dave",
          groups: { finance: ["alice", "carol"] },
        },
        { workflows: [review], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
      const r = await node.call("POST", "/v1/processes", { processKey: "purchases" });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      root = r.body.instanceId as string;
    });
    after(() => node?.close());

    const post = (url: string, body: object, as: string) => node.call("POST", url, body, as);
    const assign = async (assignee: object) => {
      const r = await post("/v1/assignments", { parentInstanceId: root, assignee }, "alice");
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.task.id as string;
    };
    const expect = async (
      r: Promise<{ status: number; body: any }>,
      status: number,
      reason?: string,
    ) => {
      const got = await r;
      assert.equal(got.status, status, JSON.stringify(got.body));
      if (reason !== undefined) assert.equal(got.body.reason, reason);
      return got.body;
    };
    const trail = async (id: string) =>
      ((await node.call("GET", `/v1/tasks/${id}/events`)).body.items as any[]).map((e) => [
        e.type,
        e.actor,
      ]);

    /** Delegates `id` from `holder` to dave, who resolves it; the holder completes it. */
    async function roundTrip(id: string, holder: string) {
      const d = await expect(
        post(`/v1/tasks/${id}/delegate`, { to: "dave", comment: "you know it" }, holder),
        200,
      );
      assert.deepEqual(
        [d.assignee, d.owner, d.delegation, d.status],
        [{ kind: "user", id: "dave" }, holder, "pending", "open"],
      );
      // Pending: nobody completes it, the delegate neither; only the delegate resolves.
      await expect(post(`/v1/tasks/${id}/complete`, {}, "dave"), 409, "DelegationPending");
      await expect(post(`/v1/tasks/${id}/complete`, {}, holder), 409, "DelegationPending");
      await expect(
        post(`/v1/tasks/${id}/delegate`, { to: "carol" }, "dave"),
        409,
        "DelegationPending",
      );
      await expect(post(`/v1/tasks/${id}/resolve`, {}, "carol"), 403, "NotDelegate");
      const dave = await node.call("GET", "/v1/tasks?user=dave", undefined, "dave");
      assert.ok(
        (dave.body.items as any[]).some((t) => t.id === id),
        "in the delegate's inbox",
      );
      const r = await expect(post(`/v1/tasks/${id}/resolve`, { comment: "done" }, "dave"), 200);
      assert.deepEqual(
        [r.assignee, r.owner, r.delegation],
        [{ kind: "user", id: holder }, holder, "resolved"],
      );
      await expect(post(`/v1/tasks/${id}/resolve`, {}, "dave"), 409, "NotDelegated");
      await expect(post(`/v1/tasks/${id}/complete`, {}, holder), 200);
    }

    void test("a user task: delegated, resolved, completed by its owner; each step in the trail", async () => {
      const id = await assign({ kind: "user", id: "bob" });
      await expect(post(`/v1/tasks/${id}/delegate`, { to: "dave" }, "carol"), 403, "NotHolder");
      await expect(post(`/v1/tasks/${id}/delegate`, { to: "nobody" }, "bob"), 400, "UnknownUser");
      await roundTrip(id, "bob");
      assert.deepEqual(await trail(id), [
        ["created", "alice"],
        ["delegated", "bob"],
        ["resolved", "dave"],
        ["completed", "bob"],
      ]);
      const events = (await node.call("GET", `/v1/tasks/${id}/events`)).body.items as any[];
      assert.deepEqual(
        events.map((e) => e.reason),
        [null, "you know it", "done", null],
      );
    });

    void test("a claimed group task: its claimer delegates, and it comes back to them", async () => {
      const id = await assign({ kind: "group", id: "finance" });
      await expect(post(`/v1/tasks/${id}/delegate`, { to: "dave" }, "carol"), 403, "NotHolder");
      await expect(post(`/v1/tasks/${id}/claim`, {}, "carol"), 200);
      await roundTrip(id, "carol");
    });

    void test("reassignment: by the holder, owner or assigner only; the former assignee is out", async () => {
      const id = await assign({ kind: "user", id: "bob" });
      await expect(
        post(`/v1/tasks/${id}/reassign`, { assignee: { kind: "user", id: "dave" } }, "carol"),
        403,
        "MayNotReassign",
      );
      const r = await expect(
        post(
          `/v1/tasks/${id}/reassign`,
          { assignee: { kind: "group", id: "finance" }, comment: "finance decides" },
          "alice",
        ),
        200,
      );
      assert.deepEqual(
        [r.assignee, r.status, r.claimedBy],
        [{ kind: "group", id: "finance" }, "open", null],
      );
      // Bob completed it from the task as this node cached it at its assignment: refused.
      const old = await post(`/v1/tasks/${id}/complete`, {}, "bob");
      assert.ok(old.status === 403 || old.status === 409, JSON.stringify(old.body));
      await expect(post(`/v1/tasks/${id}/claim`, {}, "carol"), 200);
      await expect(post(`/v1/tasks/${id}/complete`, {}, "carol"), 200);
      assert.deepEqual(await trail(id), [
        ["created", "alice"],
        ["reassigned", "alice"],
        ["claimed", "carol"],
        ["completed", "carol"],
      ]);
      await expect(
        post(`/v1/tasks/${id}/reassign`, { assignee: { kind: "user", id: "dave" } }, "alice"),
        409,
        "TaskFinished",
      );
    });

    void test("ctx.humanTask: delegated and resolved, then its owner's completion decides the call", async () => {
      const run = await post("/v1/workflows/review/runs", { id: `review-${b.name}` }, "alice");
      assert.equal(run.status, 201, JSON.stringify(run.body));
      let task: any;
      for (const end = Date.now() + 20_000; task === undefined && Date.now() < end;) {
        const items = (await node.call("GET", "/v1/tasks?user=bob&limit=200", undefined, "bob"))
          .body.items as any[];
        task = items.find((t) => t.definitionKey === "review");
        await new Promise((res) => setTimeout(res, 25));
      }
      assert.ok(task, "bob's review task");
      await roundTrip(task.id, "bob");
      for (const end = Date.now() + 20_000; ;) {
        const r = await node.call("GET", `/v1/runs/review-${b.name}`);
        if (r.body.status === "completed") {
          assert.equal(r.body.output, "bob");
          break;
        }
        assert.ok(Date.now() < end, JSON.stringify(r.body));
        await new Promise((res) => setTimeout(res, 25));
      }
    });

    void test("a definition's userTask: delegated by its claimer, resolved, completed", async () => {
      await node.tf.definitions.publish({ tenantId: "default", actorId: "alice" }, "quote", {
        key: "quote",
        name: "Quote",
        start: "price",
        states: {
          price: {
            type: "userTask",
            assignee: { group: "finance" },
            title: "Price it",
            next: "done",
          },
          done: { type: "end" },
        },
      });
      const p = await post("/v1/processes", { processKey: "quote" }, "alice");
      assert.equal(p.status, 201, JSON.stringify(p.body));
      let task: any;
      for (const end = Date.now() + 20_000; task === undefined && Date.now() < end;) {
        const items = (
          await node.call("GET", "/v1/tasks?group=finance&limit=200", undefined, "carol")
        ).body.items as any[];
        task = items.find((t) => t.rootInstanceId === p.body.instanceId);
        await new Promise((res) => setTimeout(res, 25));
      }
      assert.ok(task, "the quote's task");
      await expect(post(`/v1/tasks/${task.id}/claim`, {}, "alice"), 200);
      await roundTrip(task.id, "alice");
    });
  });
}
