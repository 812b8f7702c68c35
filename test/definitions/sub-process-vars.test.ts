/**
 * A subProcess's child vars against the child definition's `vars` schema
 * (interpreter on SQLite, runs driven by hand): vars the child's schema
 * refuses fail the parent with a typed failure naming the finding, and no
 * child starts; vars it accepts start the child as before.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- run outputs are untyped JSON */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DEFINITION_RUN } from "../../src/engine/definitions/interpreter/run-input.ts";
import { interpreterOn, TENANT } from "./support/interpreter-env.ts";

let env: Awaited<ReturnType<typeof interpreterOn>>;

before(async () => {
  env = await interpreterOn({ name: "sqlite" });
  await env.publish({
    key: "strict-kid",
    name: "Strict kid",
    vars: {
      type: "object",
      required: ["amount"],
      properties: { amount: { type: "number", minimum: 0 } },
    },
    start: "e",
    states: { e: { type: "end" } },
  });
  await env.publish({
    key: "strict-parent",
    name: "Strict parent",
    start: "kid",
    states: {
      kid: {
        type: "subProcess",
        definition: "strict-kid",
        input: "{ 'amount': vars.amount }",
        resultVar: "child",
        next: "e",
      },
      e: { type: "end" },
    },
  });
});

after(async () => {
  await env?.close();
});

const children = async () =>
  (await env.runs.listRuns({ tenantId: TENANT, workflow: DEFINITION_RUN, limit: 1_000 })).filter(
    (r) => r.parentRunId !== null,
  );

void describe("subProcess: the child's vars against its definition's schema", () => {
  test("vars the child's schema refuses fail the parent, typed, and start no child", async () => {
    const before = (await children()).length;
    await env.start("strict-parent", 1, { amount: -5 }, "strict-bad");
    await env.h.drain();
    const run = await env.run("strict-bad");
    assert.equal(run.status, "failed", JSON.stringify(run));
    assert.equal(run.error?.name, "ChildVarsInvalid");
    assert.equal(run.error?.type, "child-vars");
    assert.equal(run.error?.nonRetryable, true);
    assert.match(
      run.error.message,
      /'strict-kid' v1 do not match its schema: \/vars\/amount must be >= 0/,
    );
    assert.equal((await children()).length, before, "no child started");
  });

  test("vars it accepts start the child as before", async () => {
    await env.start("strict-parent", 1, { amount: 7 }, "strict-good");
    await env.h.drain();
    const run = await env.run("strict-good");
    assert.equal(run.status, "completed", JSON.stringify(run.error));
    assert.deepEqual((run.output as any).vars.child, { amount: 7 });
  });
});
