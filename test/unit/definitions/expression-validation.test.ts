/**
 * What validation says about expressions that compile but may not run:
 * `$eval` (data turned into code) and regex literals RE2 cannot match in
 * linear time are findings; an expression that would loop or recurse is not
 * (it is refused when it runs, by the expression budget — docs/definitions.md).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- definitions are plain JSON documents */
import assert from "node:assert/strict";
import { test } from "node:test";
import { validateDefinition } from "../../../src/engine/definitions/validate-definition.ts";
import { expenseApproval, minimal } from "../../support/definition-fixtures.ts";

function findings(doc: unknown): string[] {
  const r = validateDefinition(doc);
  return r.valid ? [] : r.errors.map((e) => `${e.pointer}: ${e.reason}`);
}

function withWhen(when: string): Record<string, any> {
  const d: Record<string, any> = expenseApproval();
  d.states.route.choices[0].when = when;
  return d;
}

test("$eval is refused wherever an expression names it: called, passed on, in a template", () => {
  for (const when of [
    "$eval(vars.body.rule)",
    '($e := $eval; $e("1 + 1"))',
    '{ "f": $eval }.f("1")',
    "$map([vars.rule], $eval)",
  ]) {
    const got = findings(withWhen(when));
    assert.equal(got.length, 1, `${when}: ${got.join("\n")}`);
    assert.match(
      got[0]!,
      /^\/states\/route\/choices\/0\/when: \$eval at character \d+ is not available/,
    );
  }
  const d: Record<string, any> = minimal();
  d.states.review.title = "Rule {{ $eval(vars.rule) }}";
  assert.match(findings(d).join("\n"), /^\/states\/review\/title: .*\$eval .* is not available/);
  // A property or a string that says "eval" is data, not the function.
  assert.deepEqual(findings(withWhen('vars.eval = "eval" and $lookup(vars, "eval")')), []);
});

test("a regex literal RE2 cannot run (backreference, lookahead) is refused; a nested quantifier is fine", () => {
  for (const re of ["/(a)\\1/", "/a(?=b)/", "/(?<!x)y/"]) {
    const got = findings(withWhen(`$contains(vars.s, ${re})`));
    assert.equal(got.length, 1, `${re}: ${got.join("\n")}`);
    assert.match(got[0]!, /when: regex .* is not supported .*RE2/);
  }
  // RE2 matches it in linear time: the catastrophic backtracking of a RegExp cannot happen.
  assert.deepEqual(findings(withWhen("$contains(vars.s, /^(a+)+$/i)")), []);
});

test("expressions that would spin are valid: the budget stops them when they run", () => {
  for (const when of [
    "($f := function($x){$f($x)}; $f(1))",
    "($f := function($x){ 1 + $f($x) }; $f(1))",
    '$pad("", 1e8) = ""',
    "$reduce([1..3e6], function($a, $b){ $a + $b }) > 0",
  ]) {
    assert.deepEqual(findings(withWhen(when)), [], when);
  }
});
