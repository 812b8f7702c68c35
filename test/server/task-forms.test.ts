/**
 * What a task asks of its completer — a form (schema and presentation hints)
 * and named actions, each of which may require a comment — is the task's own,
 * the same whichever way it is made, on every backend, over HTTP: a REST
 * assignment (and its onAllCompleted join, written on PostgreSQL by the
 * completion's own statement), a code workflow's `ctx.humanTask` and a
 * definition's `userTask`. A completion is checked against it — a 400
 * CompletionMismatch naming every field, the task still open — and records
 * the action and the comment, which all three hand back in the same shape.
 */
/* eslint-disable @typescript-eslint/no-explicit-any --
   response bodies are untyped JSON; the assertions are what check their shape. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import { workflow } from "../../src/workflow.ts";
import { backendTestOptions, backends } from "../support/backends.ts";
import { startTestTaskflow, type TestNode } from "../support/test-taskflow.ts";

const KEY = "forms-key-0123456789abcdefghijklm";

const FORM = {
  type: "object",
  required: ["amount", "checked"],
  properties: {
    amount: { type: "number", minimum: 0 },
    note: { type: "string", maxLength: 500 },
    checked: { type: "boolean" },
    pickUp: { type: "string", format: "date" },
  },
};
const FORM_UI = {
  order: ["checked", "amount"],
  fields: {
    amount: { label: { en: "Amount", fa: "مبلغ" }, help: "In EUR" },
    note: { widget: "textarea" },
    checked: { label: "I checked the receipt", widget: "checkbox" },
  },
};
const ACTIONS = {
  approve: { label: { en: "Approve", fa: "تأیید" } },
  reject: { label: "Reject", commentRequired: true },
};
const ACTIONS_OUT = [
  { name: "approve", label: { en: "Approve", fa: "تأیید" }, commentRequired: false },
  { name: "reject", label: "Reject", commentRequired: true },
];

const order = workflow("order", async (ctx, input: { id: string }) => {
  const ok = await ctx.humanTask("approve", {
    assignee: { kind: "group", id: "warehouse" },
    title: `Approve ${input.id}`,
    form: FORM,
    formUi: FORM_UI as any,
    actions: ACTIONS,
  });
  return { action: ok.action, comment: ok.comment, vars: ok.vars };
});
const legacy = workflow("legacy", async (ctx) => {
  const ok = await ctx.humanTask("ok?", { assignee: { kind: "user", id: "bob" } });
  return ok.action;
});

const asks = (t: any) => ({
  form: t.form,
  formUi: t.formUi,
  actions: t.actions,
  actionRequired: t.actionRequired,
});

for (const b of backends) {
  void describe(`task forms and actions over HTTP on ${b.name}`, async () => {
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
          users: "alice,bob,dave,erin,frank,gina,ivan",
          groups: { warehouse: ["wendy"] },
        },
        { workflows: [order, legacy], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
      ({ tf, call } = node);
    });
    after(() => node?.close());

    async function tasksOf(query: string, as: string): Promise<any[]> {
      const end = Date.now() + 20_000;
      for (;;) {
        const r = await call("GET", `/v1/tasks?${query}`, undefined, as);
        if (r.body.items.length > 0) return r.body.items as any[];
        if (Date.now() > end) throw new Error(`no task (${query}): ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }

    async function runResult(id: string): Promise<any> {
      const end = Date.now() + 20_000;
      for (;;) {
        const r = await call("GET", `/v1/runs/${id}`);
        if (r.body.status === "completed") return r.body.output;
        if (Date.now() > end) throw new Error(`run ${id}: ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 25));
      }
    }

    /** Every refusal of a completion names its field, and leaves the task as it was. */
    async function assertRefusals(taskId: string, as: string) {
      const cases: [object, string[]][] = [
        [{ vars: { amount: 5, checked: true } }, ["/action"]],
        [{ action: "escalate", vars: { amount: 5, checked: true } }, ["/action"]],
        [{ action: "reject", vars: { amount: 5, checked: true } }, ["/comment"]],
        [{ action: "approve", vars: { amount: -1, checked: true } }, ["/vars/amount"]],
        [{ action: "approve", vars: { amount: 5, checked: false } }, ["/vars/checked"]],
        [{ action: "approve", vars: { checked: true, pickUp: "soon" } }, ["/vars"]],
        [
          { action: "approve", vars: { action: "reject", amount: 1, checked: true } },
          ["/vars/action"],
        ],
      ];
      for (const [body, pointers] of cases) {
        const r = await call("POST", `/v1/tasks/${taskId}/complete`, body, as);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
        assert.equal(
          r.body.reason,
          "CompletionMismatch",
          `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`,
        );
        const got = (r.body.errors as { pointer: string }[]).map((e) => e.pointer);
        for (const p of pointers)
          assert.ok(got.includes(p), `${JSON.stringify(body)}: ${got.join()}`);
      }
      const still = await call("GET", `/v1/tasks/${taskId}`, undefined, as);
      assert.notEqual(still.body.status, "done");
      assert.equal(still.body.action, null);
    }

    void test("a REST assignment and its join: the form and actions, checked and recorded", async () => {
      const root = await call("POST", "/v1/processes", { processKey: "expenses" });
      assert.equal(root.status, 201, JSON.stringify(root.body));
      const a = await call("POST", "/v1/assignments", {
        parentInstanceId: root.body.instanceId,
        assignee: { kind: "user", id: "dave" },
        title: "Approve the expense",
        form: FORM,
        formUi: FORM_UI,
        actions: ACTIONS,
        onAllCompleted: {
          assignee: { kind: "user", id: "frank" },
          title: "Pay it",
          actions: { paid: { label: "Paid" } },
          actionRequired: false,
        },
      });
      assert.equal(a.status, 201, JSON.stringify(a.body));
      const expected = { form: FORM, formUi: FORM_UI, actions: ACTIONS_OUT, actionRequired: true };
      assert.deepEqual(asks(a.body.task), expected);
      const [listed] = await tasksOf("user=dave", "dave");
      assert.deepEqual(asks(listed), expected);
      await assertRefusals(a.body.task.id, "dave");

      const done = await call(
        "POST",
        `/v1/tasks/${a.body.task.id}/complete`,
        { action: "reject", comment: "  No receipt  ", vars: { amount: 12, checked: true } },
        "dave",
      );
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.task.action, "reject");
      assert.equal(done.body.task.comment, "No receipt");
      assert.deepEqual(done.body.task.vars, { amount: 12, checked: true });
      const again = await call("GET", `/v1/tasks/${a.body.task.id}`, undefined, "dave");
      assert.deepEqual([again.body.action, again.body.comment], ["reject", "No receipt"]);

      // The join's task: on PostgreSQL written by the completion's one statement.
      const [joined] = await tasksOf("user=frank", "frank");
      assert.deepEqual(asks(joined), {
        form: null,
        formUi: null,
        actions: [{ name: "paid", label: "Paid", commentRequired: false }],
        actionRequired: false,
      });
      // Not required: completed without one, and none recorded.
      const plain = await call("POST", `/v1/tasks/${joined.id}/complete`, {}, "frank");
      assert.equal(plain.status, 200, JSON.stringify(plain.body));
      assert.equal(plain.body.task.action, null);
    });

    void test("ctx.humanTask: the same checks, and the action and comment in its result", async () => {
      const started = await call("POST", "/v1/workflows/order/runs", {
        id: `order-${b.name}`,
        input: { id: "o-7" },
      });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const [t] = await tasksOf("group=warehouse", "wendy");
      assert.equal(t.title, "Approve o-7");
      assert.deepEqual(asks(t), {
        form: FORM,
        formUi: FORM_UI,
        actions: ACTIONS_OUT,
        actionRequired: true,
      });
      assert.equal((await call("POST", `/v1/tasks/${t.id}/claim`, {}, "wendy")).status, 200);
      await assertRefusals(t.id, "wendy");
      const done = await call(
        "POST",
        `/v1/tasks/${t.id}/complete`,
        { action: "approve", comment: "Fine", vars: { amount: 84, checked: true } },
        "wendy",
      );
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.deepEqual(await runResult(`order-${b.name}`), {
        action: "approve",
        comment: "Fine",
        vars: { amount: 84, checked: true },
      });
    });

    void test("a task without actions: vars.action is still its action (as before)", async () => {
      await call("POST", "/v1/workflows/legacy/runs", { id: `legacy-${b.name}` });
      const [t] = await tasksOf("user=bob", "bob");
      assert.deepEqual(asks(t), { form: null, formUi: null, actions: null, actionRequired: false });
      const done = await call(
        "POST",
        `/v1/tasks/${t.id}/complete`,
        { vars: { action: "approve" } },
        "bob",
      );
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.equal(done.body.task.action, "approve");
      assert.equal(await runResult(`legacy-${b.name}`), "approve");
    });

    void test("a definition's userTask: its form, hints and labelled actions on the task", async () => {
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
            form: FORM,
            formUi: FORM_UI,
            actions: {
              approve: { next: "done", label: { en: "Approve", fa: "تأیید" } },
              reject: { next: "done", label: "Reject", commentRequired: true },
            },
            resultVar: "decision",
          },
          done: { type: "end" },
        },
      });
      const r = await call("POST", "/v1/processes", {
        processKey: "expense",
        vars: { amount: 120 },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const [t] = await tasksOf("user=gina", "gina");
      assert.deepEqual(asks(t), {
        form: FORM,
        formUi: FORM_UI,
        actions: ACTIONS_OUT,
        actionRequired: true,
      });
      await assertRefusals(t.id, "gina");
      const done = await call(
        "POST",
        `/v1/tasks/${t.id}/complete`,
        { action: "reject", comment: "Too much", vars: { amount: 120, checked: true } },
        "gina",
      );
      assert.equal(done.status, 200, JSON.stringify(done.body));
      // Nothing internal in the referral's vars any more.
      const tree = await call("GET", `/v1/instances/${t.instanceId}`);
      assert.doesNotMatch(JSON.stringify(tree.body), /taskflow(Form|Actions)/);
    });

    void test("a form or actions the engine cannot use: a 400 naming the field, nothing written", async () => {
      const bad: [object, RegExp][] = [
        [{ form: { type: "object", properties: { a: { type: "strin" } } } }, /form/],
        [{ form: { type: "object", requried: ["a"] } }, /form/],
        [{ form: { type: "string", pattern: "(a+)+(" } }, /form/],
        [{ formUi: { fields: { a: { widget: "slider" } } } }, /formUi/],
        [{ actions: {} }, /actions/],
        [{ actions: { "not ok": {} } }, /actions/],
        [{ actions: { ok: { commentRequired: "yes" } } }, /commentRequired/],
        [{ actions: { ok: { label: { english: "OK" } } } }, /label/],
        [{ actionRequired: true }, /actionRequired/],
        [{ onAllCompleted: { assignee: { kind: "user", id: "erin" }, form: { type: 3 } } }, /form/],
      ];
      for (const [asksFor, field] of bad) {
        const r = await call("POST", "/v1/assignments", {
          definitionKey: "refused",
          assignee: { kind: "user", id: "ivan" },
          ...asksFor,
        });
        assert.equal(r.status, 400, `${JSON.stringify(asksFor)}: ${JSON.stringify(r.body)}`);
        assert.match(JSON.stringify(r.body), field, JSON.stringify(r.body));
      }
      const none = await call("GET", "/v1/tasks?user=ivan", undefined, "ivan");
      assert.deepEqual(none.body.items, []);
      // The library's assign (no HTTP schema in front) applies the same checks.
      await assert.rejects(
        tf.engine.assign(
          { tenantId: "default", actorId: "alice" },
          {
            definitionKey: "lib",
            assignee: { kind: "user", id: "ivan" },
            form: { type: "object", requried: ["a"] },
          },
        ),
        { reason: "InvalidTaskDetails", message: /form/ },
      );
      await assert.rejects(
        tf.engine.assign(
          { tenantId: "default", actorId: "alice" },
          { definitionKey: "lib", assignee: { kind: "user", id: "ivan" }, actions: { "a b": {} } },
        ),
        { reason: "InvalidTaskDetails", message: /actions/ },
      );
    });
  });
}
