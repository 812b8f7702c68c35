/**
 * The work estimate of checking a value against a schema (value-check.ts):
 * its per-depth check cost, references unfolded and `$defs` counted only
 * where referred to; the count per value node; the early stop; and the
 * findings capped.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TaskflowError } from "../../../src/domain/errors.ts";
import {
  compileSchema,
  type CompiledSchema,
} from "../../../src/engine/definitions/schema-compiler.ts";
import { measureSchema } from "../../../src/engine/definitions/schema-limits.ts";
import {
  VALUE_LIMITS,
  valueFindings,
  valueWork,
} from "../../../src/engine/definitions/value-check.ts";

function compiled(schema: unknown): CompiledSchema {
  const o = compileSchema(schema);
  assert.ok(o.ok, JSON.stringify(o));
  return o;
}

const form = {
  type: "object",
  required: ["f0"],
  properties: Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [`f${i}`, { type: "string", maxLength: 200 }]),
  ),
};
const data = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}`, `value ${i}`]));

void describe("value-check: the work of checking a value, bounded", () => {
  test("levels: subschemas and keywords per depth of the value", () => {
    // Root: 1 + 3 keywords; each property one level down: 1 + 2.
    assert.deepEqual(measureSchema(form, "").levels, [4, 60]);
    // allOf in place, items one level down, a $ref unfolded where it is, $defs alone not at all.
    const s = {
      $defs: { n: { type: "number" }, unused: { type: "string", minLength: 1 } },
      allOf: [{ type: "array" }],
      items: { $ref: "#/$defs/n" },
    };
    assert.deepEqual(measureSchema(s, "").levels, [4 + 2, 2 + 2]);
    assert.deepEqual(measureSchema(true, "").levels, [1]);
  });

  test("work: each value node counts 1 plus its depth's cost", () => {
    const { levels } = compiled(form);
    // The object: 1 + 4; its 20 strings: 1 + 60 each.
    assert.equal(valueWork(levels, data), 5 + 20 * 61);
    // Deeper than the schema: 1 a node.
    assert.equal(valueWork([2], { a: { b: [1, 2] } }), 3 + 1 + 1 + 2);
    // Stops once past the bound, however large the value.
    const huge = Array.from({ length: 1_000_000 }, () => 0);
    assert.equal(valueWork([1, 1], huge, 100), 102);
  });

  test("the estimate of an ordinary form costs microseconds", () => {
    const { levels } = compiled(form);
    const n = 10_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) valueWork(levels, data);
    const each = ((performance.now() - t0) / n) * 1_000;
    assert.ok(each < 200, `${each.toFixed(1)} µs an estimate`);
  });

  test("past the budget: TooLarge naming the limit, before Ajv runs", () => {
    const branches = Array.from({ length: 300 }, (_, i) => ({ required: [`x${i}`] }));
    const c = compiled({ items: { anyOf: branches } });
    const t0 = performance.now();
    assert.throws(
      () =>
        valueFindings(
          c,
          Array.from({ length: 10_000 }, () => ({})),
          "/vars",
          "the vars",
        ),
      (e: unknown) =>
        e instanceof TaskflowError &&
        e.code === "TooLarge" &&
        e.message.includes(`${VALUE_LIMITS.maxWork} units of work`),
    );
    assert.ok(performance.now() - t0 < 500, "refused at once");
  });

  test("findings: at most maxFindings listed, the rest counted or the first only", () => {
    const branches = Array.from({ length: 300 }, (_, i) => ({ required: [`x${i}`] }));
    const c = compiled({ items: { anyOf: branches } });
    const small = valueFindings(c, [{}, {}], "/vars", "the vars");
    assert.equal(small.length, VALUE_LIMITS.maxFindings + 1);
    assert.match(small.at(-1)!.reason, /has \d+ more findings, not listed/);
    const large = valueFindings(
      c,
      Array.from({ length: 1_000 }, () => ({})),
      "/vars",
      "x",
    );
    assert.ok(large.length <= VALUE_LIMITS.maxFindings + 1, `${large.length} findings`);
    assert.match(large.at(-1)!.reason, /only up to its first finding/);
    assert.deepEqual(valueFindings(compiled(form), data, "/vars", "x"), []);
  });
});
