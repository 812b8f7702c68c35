/** The structural diff: cases per op, and a property — applying the diff to `from` gives `to`. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { diffJson, type DiffEntry } from "../../../src/engine/definitions/definition-diff.ts";

test("add, remove, replace, with escaped pointers", () => {
  assert.deepEqual(diffJson({ a: 1, "x/y": 1, k: [1, 2, 3] }, { a: 2, b: { c: 1 }, k: [1, 5] }), [
    { pointer: "/a", op: "replace", from: 1, to: 2 },
    { pointer: "/b", op: "add", to: { c: 1 } },
    { pointer: "/k/1", op: "replace", from: 2, to: 5 },
    { pointer: "/k/2", op: "remove", from: 3 },
    { pointer: "/x~1y", op: "remove", from: 1 },
  ]);
});

test("equal documents have no changes; a change of kind is one replace", () => {
  assert.deepEqual(diffJson({ a: [1, { b: null }] }, { a: [1, { b: null }] }), []);
  assert.deepEqual(diffJson({ a: [1] }, { a: { 0: 1 } }), [
    { pointer: "/a", op: "replace", from: [1], to: { 0: 1 } },
  ]);
});

/** Applies entries in order (RFC 6901 pointers), as a client would. */
function apply(doc: unknown, changes: DiffEntry[]): unknown {
  let root = structuredClone(doc);
  for (const c of changes) {
    const tokens = c.pointer
      .split("/")
      .slice(1)
      .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    if (tokens.length === 0) {
      root = c.op === "remove" ? undefined : structuredClone((c as { to: unknown }).to);
      continue;
    }
    let parent = root as Record<string, unknown>;
    for (const t of tokens.slice(0, -1)) parent = parent[t] as Record<string, unknown>;
    const last = tokens.at(-1)!;
    if (c.op === "remove") {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else parent[last] = structuredClone(c.to);
  }
  return root;
}

test("property: applying diff(a, b) to a gives b", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), (a, b) => {
      assert.deepEqual(apply(a, diffJson(a, b)), b);
    }),
    { numRuns: 1000, seed: 99 },
  );
});
