import assert from "node:assert/strict";
import { test } from "node:test";
import { findUnstorableText, unstorableReason } from "../../../src/domain/storable-text.ts";

test("NUL and unpaired surrogates are refused; pairs, U+FFFD and other controls are kept", () => {
  for (const ok of ["", "plain", "💥", "\ud83d\ude00", "\ufffd", "\u0001\u001f", "a\u2028b"]) {
    assert.equal(unstorableReason(ok), null, JSON.stringify(ok));
  }
  assert.match(String(unstorableReason("a\u0000")), /NUL/);
  for (const [bad, hex] of [
    ["\ud800", "D800"],
    ["x\udbff", "DBFF"],
    ["\udc00y", "DC00"],
    ["\ude00\ud83d", "DE00"], // a pair in the wrong order is two unpaired halves
  ] as const) {
    assert.match(String(unstorableReason(bad)), new RegExp(`U\\+${hex}`), JSON.stringify(bad));
  }
});

test("the first bad string or key is named by its path", () => {
  assert.equal(findUnstorableText({ a: [1, { b: "ok" }], c: null }, "vars"), null);
  assert.equal(
    findUnstorableText({ a: { "b c": [1, "\udc00"] } }, "vars"),
    'vars.a["b c"][1]: text containing an unpaired surrogate (U+DC00) is not accepted',
  );
  assert.equal(
    findUnstorableText({ ok: 1, ["k\u0000"]: 1 }, "", "body"),
    'body["k\\u0000"]: key: text containing a NUL character (U+0000) is not accepted',
  );
  assert.equal(
    findUnstorableText(["ok", "\u0000"], "", "body"),
    "body[1]: text containing a NUL character (U+0000) is not accepted",
  );
  assert.equal(
    findUnstorableText("\ud800", "", "body"),
    "body: text containing an unpaired surrogate (U+D800) is not accepted",
  );
});
