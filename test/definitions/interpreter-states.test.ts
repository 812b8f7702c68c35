/**
 * Every state type of the interpreter on SQLite, runs driven by hand with a
 * settable clock (test/support/harness.ts): timers, signals with timeouts,
 * user tasks with completion policies and escalation, parallel joins, sub-
 * processes, code steps with onError, respond, terminate.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- run outputs are untyped JSON */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { NonRetryableError } from "../../src/domain/workflow-failure.ts";
import { newId } from "../../src/domain/ids.ts";
import { registerStep } from "../../src/engine/definitions/interpreter/step-registry.ts";
import { workflow } from "../../src/workflow.ts";
import { interpreterOn, TENANT } from "./support/interpreter-env.ts";

type Env = Awaited<ReturnType<typeof interpreterOn>>;
let env: Env;
const HOUR = 3_600_000;

const receipt = workflow("send-receipt", async (ctx, input: { to: string }) => {
  return ctx.step("mail", () => ({ mailed: input.to }));
});

before(async () => {
  registerStep("st-add", (input: any) => ({ sum: input.a + input.b }));
  registerStep("st-echo", (input) => input);
  registerStep("st-inc", (n) => Number(n) + 1);
  registerStep("st-fail", () => {
    throw new NonRetryableError("card declined");
  });
  env = await interpreterOn({ name: "sqlite" }, [receipt]);
});

after(async () => {
  await env?.close();
});

const output = async (id: string): Promise<any> => (await env.run(id)).output;

void describe("interpreter states", () => {
  test("timer: a duration, then an instant from an expression", async () => {
    await env.publish({
      key: "timers",
      name: "Timers",
      start: "wait",
      states: {
        wait: { type: "timer", duration: "PT1H", next: "until" },
        until: { type: "timer", until: "vars.at", next: "done" },
        done: { type: "end" },
      },
    });
    const at = new Date(env.h.clock.now() + 3 * HOUR).toISOString();
    await env.start("timers", 1, { at }, "timer-1");
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    assert.equal((await env.run("timer-1")).wakeAt, env.h.clock.now() + HOUR);
    env.h.clock.advance(HOUR);
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    assert.equal((await env.run("timer-1")).wakeAt, Date.parse(at));
    env.h.clock.advance(2 * HOUR);
    assert.deepEqual(await env.h.drain(), ["completed"]);
  });

  test("waitSignal: the payload into resultVar (null too); a timeout goes to onTimeout", async () => {
    await env.publish({
      key: "signals",
      name: "Signals",
      start: "wait",
      states: {
        wait: {
          type: "waitSignal",
          signal: "paid",
          timeout: { expr: "'P1D'" },
          onTimeout: "late",
          resultVar: "payment",
          next: "done",
        },
        late: { type: "terminate", reason: "late" },
        done: { type: "end" },
      },
    });
    await env.start("signals", 1, {}, "sig-1");
    await env.start("signals", 1, {}, "sig-2");
    assert.deepEqual(await env.h.drain(), ["waiting", "waiting"]);
    const now = env.h.clock.now();
    await env.runs.sendSignal(
      TENANT,
      "sig-1",
      { id: newId(), name: "paid", payload: { eur: 5 } },
      now,
    );
    assert.deepEqual(await env.h.drain(), ["completed"]);
    assert.deepEqual(await output("sig-1"), { vars: { payment: { eur: 5 } } });
    // A signal without a payload is a signal, not the timeout.
    await env.start("signals", 1, {}, "sig-3");
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    await env.runs.sendSignal(TENANT, "sig-3", { id: newId(), name: "paid", payload: null }, now);
    assert.deepEqual(await env.h.drain(), ["completed"]);
    assert.deepEqual(await output("sig-3"), { vars: { payment: null } });
    env.h.clock.advance(24 * HOUR);
    assert.deepEqual(await env.h.drain(), ["completed"]);
    assert.deepEqual(await output("sig-2"), { vars: {}, terminated: "late" });
  });

  test("userTask: any of two users, the other task cancelled; escalation reassigns", async () => {
    await env.publish({
      key: "tasks",
      name: "Tasks",
      start: "either",
      states: {
        either: {
          type: "userTask",
          assignee: { users: ["bob", "carol"] },
          completion: "any",
          title: "Either",
          next: "boss",
        },
        boss: {
          type: "userTask",
          assignee: { user: "erin" },
          title: "Sign {{ vars.n }}",
          escalation: { after: "1h", reassign: { user: "dave" } },
          actions: { sign: { next: "done" } },
          resultVar: "signed",
        },
        done: { type: "end" },
      },
    });
    await env.start("tasks", 1, { n: 3 }, "task-1");
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    const [bobs] = await env.openTasks("bob");
    assert.equal((await env.openTasks("carol")).length, 1);
    await env.complete("bob", bobs!.id, { ok: true });
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    assert.equal((await env.openTasks("carol")).length, 0, "the rest is cancelled");
    assert.equal((await env.openTasks("erin")).length, 1);
    env.h.clock.advance(HOUR);
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    assert.equal((await env.openTasks("erin")).length, 0, "escalated away from erin");
    const [daves] = await env.openTasks("dave");
    await env.complete("dave", daves!.id, { action: "sign" });
    assert.deepEqual(await env.h.drain(), ["completed"]);
    assert.deepEqual((await output("task-1")).vars.signed, {
      action: "sign",
      comment: null,
      completedBy: "dave",
      data: {},
    });
  });

  test("call: the step's result; onError takes a failure; an unknown step fails the run", async () => {
    await env.publish({
      key: "calls",
      name: "Calls",
      start: "add",
      states: {
        add: {
          type: "call",
          step: "st-add",
          input: "{ 'a': vars.a, 'b': 2 }",
          resultVar: "r",
          next: "charge",
        },
        charge: {
          type: "call",
          step: "st-fail",
          retry: { maxAttempts: 1 },
          onError: "failed",
          next: "done",
        },
        failed: { type: "terminate", reason: "payment failed" },
        done: { type: "end" },
      },
    });
    await env.start("calls", 1, { a: 1 }, "call-1");
    assert.deepEqual(await env.h.drain(), ["completed"]);
    assert.deepEqual(await output("call-1"), {
      vars: { a: 1, r: { sum: 3 } },
      terminated: "payment failed",
    });

    await env.publish({
      key: "ghost",
      name: "Ghost",
      start: "x",
      states: { x: { type: "call", step: "no-such-step", next: "done" }, done: { type: "end" } },
    });
    await env.start("ghost", 1, {}, "ghost-1");
    assert.deepEqual(await env.h.drain(), ["failed"]);
    const failed = await env.run("ghost-1");
    assert.match(failed.error!.message, /no-such-step/);
  });

  test("parallel: join any cancels the other branch; terminate in a branch ends the process", async () => {
    await env.publish({
      key: "fork",
      name: "Fork",
      start: "both",
      states: {
        both: {
          type: "parallel",
          join: "any",
          branches: [
            {
              start: "slow",
              states: { slow: { type: "timer", duration: "P1D", next: "e" }, e: { type: "end" } },
            },
            {
              start: "fast",
              states: {
                fast: {
                  type: "call",
                  step: "st-add",
                  input: "{ 'a': 1, 'b': 1 }",
                  resultVar: "x",
                  next: "e",
                },
                e: { type: "end" },
              },
            },
          ],
          resultVar: "branches",
          next: "done",
        },
        done: { type: "end" },
      },
    });
    await env.start("fork", 1, { k: 1 }, "fork-1");
    await env.h.drain();
    const out = await output("fork-1");
    assert.equal((await env.run("fork-1")).status, "completed");
    assert.deepEqual(out.vars.branches, [null, { k: 1, x: { sum: 2 } }]);
    assert.equal((await env.run("fork-1:0")).status, "cancelled", "the slow branch is cancelled");

    await env.publish({
      key: "fork-end",
      name: "Fork end",
      start: "both",
      states: {
        both: {
          type: "parallel",
          branches: [
            {
              start: "slow",
              states: { slow: { type: "timer", duration: "P1D", next: "e" }, e: { type: "end" } },
            },
            { start: "stop", states: { stop: { type: "terminate", reason: "stop all" } } },
          ],
          next: "done",
        },
        done: { type: "end" },
      },
    });
    await env.start("fork-end", 1, {}, "fork-2");
    await env.h.drain();
    assert.deepEqual(await output("fork-2"), { vars: {}, terminated: "stop all" });
    assert.equal((await env.run("fork-2:0")).status, "cancelled");
  });

  test("parallel: a failed branch fails the state and cancels the others", async () => {
    await env.publish({
      key: "fork-fail",
      name: "Fork fail",
      start: "both",
      states: {
        both: {
          type: "parallel",
          branches: [
            {
              start: "slow",
              states: { slow: { type: "timer", duration: "P1D", next: "e" }, e: { type: "end" } },
            },
            {
              start: "bad",
              states: {
                bad: { type: "call", step: "st-fail", retry: { maxAttempts: 1 }, next: "e" },
                e: { type: "end" },
              },
            },
          ],
          next: "done",
        },
        done: { type: "end" },
      },
    });
    await env.start("fork-fail", 1, {}, "fork-3");
    await env.h.drain();
    const run = await env.run("fork-3");
    assert.equal(run.status, "failed");
    assert.match(run.error!.message, /card declined/);
    assert.equal((await env.run("fork-3:0")).status, "cancelled");
  });

  test("expressions read the recorded clock: now, $now() and $millis()", async () => {
    await env.publish({
      key: "clock",
      name: "Clock",
      start: "read",
      states: {
        read: {
          type: "call",
          step: "st-echo",
          input: "{ 'now': now, 'fn': $now(), 'ms': $millis() }",
          resultVar: "t",
          next: "e",
        },
        e: { type: "end" },
      },
    });
    env.h.clock.advance(12_345);
    const t = env.h.clock.now();
    await env.start("clock", 1, {}, "clock-1");
    await env.h.drain();
    const iso = new Date(t).toISOString();
    assert.deepEqual((await output("clock-1")).vars.t, { now: iso, fn: iso, ms: t });
  });

  test("a long loop continues as new and keeps its vars", async () => {
    await env.publish({
      key: "loop",
      name: "Loop",
      start: "tick",
      states: {
        tick: { type: "timer", duration: "1s", next: "inc" },
        inc: { type: "call", step: "st-inc", input: "vars.n", resultVar: "n", next: "check" },
        check: {
          type: "choice",
          choices: [{ when: "vars.n >= 100", next: "e" }],
          otherwise: "tick",
        },
        e: { type: "end" },
      },
    });
    await env.start("loop", 1, { n: 0 }, "loop-1");
    for (let i = 0; i < 100; i++) {
      await env.h.drain();
      env.h.clock.advance(1_000);
    }
    await env.h.drain();
    const run = await env.run("loop-1");
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, { vars: { n: 100 } });
    assert.ok(run.generation >= 1, `generation ${run.generation}`);
  });

  test("subProcess: another definition (latest, pinned) and a code workflow", async () => {
    await env.publish({
      key: "kid",
      name: "Kid",
      start: "add",
      states: {
        add: {
          type: "call",
          step: "st-add",
          input: "{ 'a': vars.a, 'b': vars.b }",
          resultVar: "sum",
          next: "e",
        },
        e: { type: "end" },
      },
    });
    await env.publish({
      key: "parent",
      name: "Parent",
      start: "kid",
      states: {
        kid: {
          type: "subProcess",
          definition: "kid",
          input: "{ 'a': vars.n, 'b': 10 }",
          resultVar: "child",
          next: "mail",
        },
        mail: {
          type: "subProcess",
          workflow: "send-receipt",
          input: "{ 'to': 'ann' }",
          resultVar: "mail",
          next: "e",
        },
        e: { type: "end" },
      },
    });
    await env.start("parent", 1, { n: 5 }, "parent-1");
    await env.h.drain();
    const run = await env.run("parent-1");
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual(run.output, {
      vars: { n: 5, child: { a: 5, b: 10, sum: { sum: 15 } }, mail: { mailed: "ann" } },
    });
  });

  test("respond: the answer reaches a waiter here and, from the history, another node", async () => {
    await env.publish({
      key: "answer",
      name: "Answer",
      start: "ack",
      states: {
        ack: { type: "respond", status: 202, body: "{ 'id': $runId, 'n': vars.n }", next: "wait" },
        wait: { type: "timer", duration: "1h", next: "e" },
        e: { type: "end" },
      },
    });
    const here = env.responses.wait(TENANT, "resp-1", 5_000);
    await env.start("answer", 1, { n: 7 }, "resp-1");
    assert.deepEqual(await env.h.drain(), ["waiting"]);
    const expected = { status: 202, body: { id: "resp-1", n: 7 } };
    assert.deepEqual(await here, expected);
    assert.deepEqual(await env.elsewhere().awaitResponse(TENANT, "resp-1", 1_000), expected);
  });
});
