/** The interpreter's pure parts: durations, truthiness, assignees, the step registry, scopes. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { withAdded, toRequest } from "../../../src/engine/definitions/interpreter/assignees.ts";
import { CompiledDefinition } from "../../../src/engine/definitions/interpreter/compiled-definition.ts";
import { durationMs } from "../../../src/engine/definitions/interpreter/definition-duration.ts";
import { truthy } from "../../../src/engine/definitions/interpreter/run-context.ts";
import {
  registerStep,
  registeredStep,
  unregisterStep,
} from "../../../src/engine/definitions/interpreter/step-registry.ts";
import type { ProcessDefinition } from "../../../src/engine/definitions/definition-language.ts";

test("durations: ISO 8601, compact and milliseconds", () => {
  assert.equal(durationMs("P2D"), 2 * 86_400_000);
  assert.equal(durationMs("PT1H30M"), 5_400_000);
  assert.equal(durationMs("P1W"), 604_800_000);
  assert.equal(durationMs("PT0.5S"), 500);
  assert.equal(durationMs("1h30m"), 5_400_000);
  assert.equal(durationMs(250), 250);
  assert.throws(() => durationMs("soon"));
  assert.throws(() => durationMs({}));
});

test("truthy: JSONata's false values", () => {
  for (const v of [false, null, undefined, 0, "", [], {}, [0, ""]]) assert.equal(truthy(v), false);
  for (const v of [true, 1, "x", [0, 1], { a: 1 }]) assert.equal(truthy(v), true);
});

test("assignees: literals and what an expression gives; addAssignee merges users", () => {
  assert.deepEqual(toRequest("bob", "s"), { kind: "user", id: "bob" });
  assert.deepEqual(toRequest({ group: "ops" }, "s"), { kind: "group", id: "ops" });
  assert.deepEqual(toRequest({ users: ["a", "b"] }, "s"), { kind: "users", ids: ["a", "b"] });
  assert.throws(() => toRequest(42, "state 'x'"), /state 'x'/);
  assert.deepEqual(withAdded({ kind: "users", ids: ["a", "b"] }, { kind: "user", id: "c" }), {
    kind: "users",
    ids: ["a", "b", "c"],
  });
  assert.deepEqual(withAdded({ kind: "group", id: "g" }, { kind: "user", id: "c" }), {
    kind: "user",
    id: "c",
  });
});

test("registerStep: names checked, the same function twice is fine, another one is refused", () => {
  const fn = () => 1;
  registerStep("unit-step", fn);
  registerStep("unit-step", fn);
  assert.throws(() => registerStep("unit-step", () => 2), /registered twice/);
  assert.throws(() => registerStep("bad name!", fn), /must be/);
  assert.equal(registeredStep("unit-step")?.fn, fn);
  unregisterStep("unit-step");
  assert.equal(registeredStep("unit-step"), undefined);
});

test("scopes: a parallel branch's states by path; expressions compiled once", () => {
  const def: ProcessDefinition = {
    key: "k",
    name: "K",
    start: "p",
    states: {
      p: {
        type: "parallel",
        branches: [{ start: "b", states: { b: { type: "end" } } }],
        next: "e",
      },
      e: { type: "end" },
    },
  };
  const c = new CompiledDefinition("k", 1, def);
  assert.equal(c.scope().start, "p");
  assert.equal(c.scope(["p", 0]).start, "b");
  assert.throws(() => c.scope(["p", 1]), /no branch/);
});
