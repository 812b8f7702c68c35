/**
 * What a person reads on a task — title, description, priority, due and
 * follow-up times, the overdue flag — is the same whichever way the task was
 * made, on every backend, over HTTP: a REST assignment (and its onAllCompleted
 * join, which on PostgreSQL is written by the completion's own statement), a
 * code workflow's `ctx.humanTask`, and a definition's `userTask`. Details out
 * of range are a 400 naming the field, and nothing is written.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { startTestTaskflow, type TestNode } from "../support/test-taskflow.ts";

const KEY = "details-key-0123456789abcdefghijk";
const DUE = "2020-01-01T00:00:00.000Z"; // in the past: overdue while open
const LATER = "2099-06-30T12:00:00.000Z";

const review = workflow("review", async (ctx) => {
  const r = await ctx.humanTask("review", {
    assignee: { kind: "user", id: "bob" },
    title: "Review order 42",
    description: "Check the address",
    priority: 80,
    dueAt: new Date(LATER),
  });
  return r.completedBy;
});
const untitled = workflow("untitled", async (ctx) => {
  await ctx.humanTask("sign-off", { assignee: { kind: "group", id: "clerks" } });
});

const detailsOf = (t: any) => ({
  title: t.title,
  description: t.description,
  priority: t.priority,
  dueAt: t.dueAt,
  followUpAt: t.followUpAt,
  overdue: t.overdue,
});

for (const b of backends) {
  void describe(`task details over HTTP on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let node: TestNode;
    let tf: Taskflow;
    let call: TestNode["call"];
    before(async () => {
      node = await startTestTaskflow(
        b,
        KEY,
        {
          maxEventLoopDelay: 0,
          users: "alice,bob,dave,erin,frank,gina,ivan,jo",
          groups: { clerks: ["carol"] },
        },
        { workflows: [review, untitled], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
      ({ tf, call } = node);
    });
    after(() => node?.close());

    async function tasksOf(user: string, count = 1): Promise<any[]> {
      const end = Date.now() + 20_000;
      for (;;) {
        const r = await call("GET", `/v1/tasks?user=${user}`, undefined, user);
        if (r.body.items.length >= count) return r.body.items as any[];
        if (Date.now() > end) throw new Error(`no task for ${user}: ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }

    void test("a REST assignment and its join: the details in the task, its list and its tree", async () => {
      // Under a running root: on PostgreSQL one statement writes the referral and its tasks.
      const root = await call("POST", "/v1/processes", { processKey: "leave" });
      assert.equal(root.status, 201, JSON.stringify(root.body));
      const a = await call("POST", "/v1/assignments", {
        parentInstanceId: root.body.instanceId,
        assignee: { kind: "users", ids: ["dave", "erin"] },
        title: "  Approve 3 days of leave  ",
        description: "From 2 to 4 June",
        priority: 90,
        dueAt: DUE,
        followUpAt: LATER,
        onAllCompleted: {
          assignee: { kind: "user", id: "frank" },
          title: "Book the leave",
          dueAt: LATER,
        },
      });
      assert.equal(a.status, 201, JSON.stringify(a.body));
      const expected = {
        title: "Approve 3 days of leave",
        description: "From 2 to 4 June",
        priority: 90,
        dueAt: DUE,
        followUpAt: LATER,
        overdue: true,
      };
      for (const t of a.body.tasks) assert.deepEqual(detailsOf(t), expected);
      const [listed] = await tasksOf("dave");
      assert.deepEqual(detailsOf(listed), expected);
      const tree = await call("GET", `/v1/instances/${a.body.instanceId}`);
      assert.deepEqual(detailsOf(tree.body.tasks[0]), expected);

      for (const t of a.body.tasks as any[]) {
        const done = await call("POST", `/v1/tasks/${t.id}/complete`, {}, t.assignee.id);
        assert.equal(done.status, 200, JSON.stringify(done.body));
        // A finished task is no longer overdue.
        assert.equal(done.body.task.overdue, false);
      }
      const [joined] = await tasksOf("frank");
      assert.deepEqual(detailsOf(joined), {
        title: "Book the leave",
        description: null,
        priority: 50,
        dueAt: LATER,
        followUpAt: null,
        overdue: false,
      });
    });

    void test("ctx.humanTask: its details, and its name as the title when none is given", async () => {
      const started = await call("POST", "/v1/workflows/review/runs", {});
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const [t] = await tasksOf("bob");
      assert.deepEqual(detailsOf(t), {
        title: "Review order 42",
        description: "Check the address",
        priority: 80,
        dueAt: LATER,
        followUpAt: null,
        overdue: false,
      });
      await call("POST", "/v1/workflows/untitled/runs", {});
      const end = Date.now() + 20_000;
      let items: any[] = [];
      while (items.length === 0 && Date.now() < end) {
        items = (await call("GET", "/v1/tasks?group=clerks", undefined, "carol")).body.items;
        await new Promise((res) => setTimeout(res, 25));
      }
      assert.equal(items[0]?.title, "sign-off");
      assert.equal(items[0]?.priority, 50);
    });

    void test("a definition's userTask: its rendered title, description and due time", async () => {
      const actor = { tenantId: "default", actorId: "alice" };
      await tf.definitions.publish(actor, "expense", {
        key: "expense",
        name: "Expense",
        start: "approve",
        states: {
          approve: {
            type: "userTask",
            assignee: { user: "gina" },
            title: "Approve {{ vars.amount }} EUR",
            description: "Spent by {{ vars.by }}",
            due: "P2D",
            next: "done",
          },
          done: { type: "end" },
        },
      });
      const before = Date.now();
      const r = await call("POST", "/v1/processes", {
        processKey: "expense",
        vars: { amount: 120, by: "hal" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const [t] = await tasksOf("gina");
      assert.equal(t.title, "Approve 120 EUR");
      assert.equal(t.description, "Spent by hal");
      const due = Date.parse(t.dueAt);
      const twoDays = 2 * 86_400_000;
      assert.ok(due >= before + twoDays && due <= Date.now() + twoDays, t.dueAt);
      assert.equal(t.overdue, false);
    });

    void test("details out of range: a 400 naming the field, and no task written", async () => {
      const bad: [object, string][] = [
        [{ priority: 101 }, "priority"],
        [{ priority: 2.5 }, "priority"],
        [{ title: "x".repeat(201) }, "title"],
        [{ dueAt: "tomorrow" }, "dueAt"],
        [{ dueAt: "2026-12-31T17:00:00" }, "dueAt"],
        [{ onAllCompleted: { assignee: { kind: "user", id: "x" }, priority: -1 } }, "priority"],
      ];
      for (const [details, field] of bad) {
        const r = await call("POST", "/v1/assignments", {
          definitionKey: "refused",
          assignee: { kind: "user", id: "ivan" },
          ...details,
        });
        assert.equal(r.status, 400, `${JSON.stringify(details)}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.code, "Validation");
        assert.match(JSON.stringify(r.body), new RegExp(field), JSON.stringify(r.body));
      }
      const none = await call("GET", "/v1/tasks?user=ivan", undefined, "ivan");
      assert.deepEqual(none.body.items, []);
    });

    void test("the library's assign applies the same check as the route", async () => {
      await assert.rejects(
        tf.engine.assign(
          { tenantId: "default", actorId: "alice" },
          { definitionKey: "lib", assignee: { kind: "user", id: "jo" }, dueAt: "soon" },
        ),
        { reason: "InvalidTaskDetails", message: /dueAt/ },
      );
    });
  });
}
