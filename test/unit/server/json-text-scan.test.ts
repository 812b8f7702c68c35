import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { numberProblem, scanJsonText } from "../../../src/server/hooks/json-text-scan.ts";

void describe("scanJsonText", () => {
  void test("numbers that round-trip pass, wherever they are", () => {
    for (const text of [
      '{"a":1,"b":-1.5,"c":[0,0.0,1e300,5e-324,9007199254740992,-9007199254740991]}',
      '[1, 2.5e-3, {"x": 123456789012345}]',
      '{"s":"1e309 -0 __proto__ in a string is text"}',
      "42",
    ]) {
      assert.equal(scanJsonText(text, 64), null, text);
    }
  });

  void test("names the path of a number that would change", () => {
    assert.equal(scanJsonText('{"vars":{"x":1e309}}', 64), "vars.x: number 1e309 is out of range");
    assert.equal(
      scanJsonText('{"a":[1,{"b c":-0}]}', 64),
      'a[1]["b c"]: number -0 is negative zero (it would become 0)',
    );
    assert.equal(
      scanJsonText("[0, 1e-999]", 64),
      "body[1]: number 1e-999 is too small (it would become 0)",
    );
    assert.equal(scanJsonText("-1e400", 64), "body: number -1e400 is out of range");
    assert.match(
      String(scanJsonText('{"n":18446744073709551617}', 64)),
      /^n: integer 18446744073709551617 cannot be kept exactly/,
    );
  });

  void test("a key after an escaped quote or a nested object is tracked right", () => {
    assert.equal(
      scanJsonText('{"a\\"b":{"c":[1]},"d":{"e":1e999}}', 64),
      "d.e: number 1e999 is out of range",
    );
  });

  void test("poisoning keys get their own message", () => {
    assert.equal(
      scanJsonText('{"__proto__":1}', 64),
      "__proto__: keys named __proto__ are not accepted",
    );
    assert.equal(
      scanJsonText('{"v":{"\\u005f_proto__":{}}}', 64),
      "v.__proto__: keys named __proto__ are not accepted",
    );
    assert.match(
      String(scanJsonText('{"constructor":{"prototype":1}}', 64)),
      /^constructor\.prototype: /,
    );
    // A constructor key alone is fine.
    assert.equal(scanJsonText('{"constructor":{"name":"x"},"prototype":1}', 64), null);
  });

  void test("nesting over the limit", () => {
    assert.equal(scanJsonText("[".repeat(64) + "]".repeat(64), 64), null);
    assert.equal(scanJsonText("[".repeat(65), 64), "JSON nested deeper than 64 levels");
    assert.equal(
      scanJsonText(`{"s":"${"[".repeat(100)}"}`, 64),
      null,
      "brackets inside strings do not count",
    );
  });

  void test("a long token is shortened in the message", () => {
    const problem = numberProblem("9".repeat(400));
    assert.match(String(problem), /^number 9{40}… \(400 characters\) is out of range$/);
  });
});
