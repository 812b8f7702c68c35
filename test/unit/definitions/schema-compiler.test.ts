/**
 * The bounded compiler of tenant-supplied JSON Schemas (schema-compiler.ts):
 * patterns and formats on RE2, the cache by content, and the refusals that
 * happen before anything compiles (none of them may throw).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { validateDefinition } from "../../../src/engine/definitions/validate-definition.ts";
import {
  compileSchema,
  schemaCompileStats,
  schemaFindings,
} from "../../../src/engine/definitions/schema-compiler.ts";
import { MAX_LOOKAROUND_INPUT } from "../../../src/engine/definitions/schema-formats.ts";

function checkOf(schema: unknown) {
  const outcome = compileSchema(schema);
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.check;
}

function timed<T>(f: () => T): [T, number] {
  const started = performance.now();
  const out = f();
  return [out, performance.now() - started];
}

void describe("schema compiler", () => {
  test("pattern and patternProperties run on RE2: ^(a+)+$ on 10,000 characters at once", () => {
    const check = checkOf({
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" } },
      patternProperties: { "^(x+)+$": { type: "number" } },
    });
    // A backtracking engine takes seconds from 26 characters on, doubling with each one.
    const [results, ms] = timed(() => [
      check({ s: `${"a".repeat(10_000)}!` }),
      check({ [`${"x".repeat(10_000)}!`]: "not checked: the key does not match" }),
      check({ s: "aaa", xxx: 1 }),
      check({ xxx: "a string" }),
    ]);
    assert.deepEqual(results, [false, true, true, false]);
    assert.ok(ms < 500, `${Math.round(ms)} ms`);
  });

  test("formats: regular expressions on RE2, lookaround ones capped in length", () => {
    const check = checkOf({
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        url: { type: "string", format: "url" },
        re: { type: "string", format: "regex" },
      },
    });
    assert.equal(check({ email: "a@example.com", url: "https://example.com/x", re: "^a+$" }), true);
    assert.equal(check({ email: "not an email" }), false);
    // The url expression is quadratic: 20,000 characters took a third of a second.
    const [long, ms] = timed(() => check({ url: `http://${":".repeat(200_000)}` }));
    assert.equal(long, false);
    assert.ok(ms < 200, `${Math.round(ms)} ms`);
    assert.equal(check({ url: `https://example.com/${"a".repeat(MAX_LOOKAROUND_INPUT)}` }), false);
    // `format: regex` means a pattern this engine runs.
    assert.equal(check({ re: "(?=a)" }), false);
  });

  test("uniqueItems in linear time: 100,000 distinct objects at once, equal ones found", () => {
    const check = checkOf({ type: "array", uniqueItems: true });
    // Ajv compares every pair: 20,000 objects took 34 s.
    const many = Array.from({ length: 100_000 }, (_, i) => ({ id: i, tags: [i % 7] }));
    const [distinct, ms] = timed(() => check(many));
    assert.equal(distinct, true);
    assert.ok(ms < 1_000, `${Math.round(ms)} ms`);
    assert.equal(
      check([
        { a: 1, b: [1, { c: 2 }] },
        { b: [1, { c: 2 }], a: 1 },
      ]),
      false,
    );
    assert.match(check.errors?.[0]?.message ?? "", /items ## 0 and 1 are identical/);
    assert.equal(check([[1, 2], [2, 1], "1", 1, null, {}, [], true]), true);
    assert.equal(check([1, 1.0]), false);
    assert.equal(checkOf({ type: "array", uniqueItems: false })([{}, {}]), true);
  });

  test("a schema compiles once: the second compile of the same text is a cache hit", () => {
    const schema = () => ({ type: "object", properties: { n: { type: "integer", minimum: 7 } } });
    const before = { ...schemaCompileStats };
    const a = checkOf(schema());
    const b = checkOf(schema());
    assert.equal(a, b);
    assert.equal(schemaCompileStats.compiles - before.compiles, 1);
    assert.equal(schemaCompileStats.hits - before.hits, 1);
    assert.equal(a({ n: 3 }), false);
    // Boolean schemas are schemas too (Ajv refuses to uncache them: it throws).
    assert.equal(checkOf(true)({ any: 1 }), true);
    assert.equal(checkOf(false)({}), false);
    // A refusal is cached too: a published schema that no longer compiles costs nothing again.
    const bad = { $dynamicAnchor: "x", $dynamicRef: "#x" };
    assert.equal(compileSchema(bad).ok, false);
    const hits = schemaCompileStats.hits;
    assert.equal(compileSchema(structuredClone(bad)).ok, false);
    assert.equal(schemaCompileStats.hits, hits + 1);
  });

  test("refused before compiling, each finding at its place", () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { $dynamicAnchor: "n", properties: { c: { $dynamicRef: "#n" } } },
        "/f/properties/c/$dynamicRef",
        /recursive/,
      ],
      [
        {
          $defs: { a: { $ref: "#/$defs/b" }, b: { not: { $ref: "#/$defs/a" } } },
          $ref: "#/$defs/a",
        },
        "/f/$defs/b/not/$ref",
        /recursive/,
      ],
      [{ $ref: "#" }, "/f/$ref", /recursive/],
      [{ $ref: "#/$defs/none" }, "/f/$ref", /does not have/],
      [{ $ref: "https://example.com/s.json" }, "/f/$ref", /outside this schema/],
      [{ properties: { a: { pattern: "(a)\\1" } } }, "/f/properties/a/pattern", /RE2/],
      [{ pattern: "a".repeat(1_001) }, "/f/pattern", /1001 characters/],
      [{ $schema: "http://json-schema.org/draft-04/schema#" }, "/f/$schema", /no schema/],
    ];
    for (const [schema, pointer, reason] of cases) {
      const found = schemaFindings(schema, "/f");
      assert.ok(
        found.some((e) => e.pointer === pointer && reason.test(e.reason)),
        `${JSON.stringify(schema)}: ${JSON.stringify(found)}`,
      );
    }
  });

  test("patternProperties: 20 patterns at most, counted with references unfolded", () => {
    const patterns = (n: number, from = 0) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`^x${from + i}$`, {}]));
    assert.deepEqual(schemaFindings({ patternProperties: patterns(20) }, "/f"), []);
    assert.match(
      schemaFindings({ patternProperties: patterns(21) }, "/f")[0]?.reason ?? "",
      /has 21 patternProperties patterns/,
    );
    // 8 patterns reached through three references count 24 (and their definition 8 more).
    const shared = { $defs: { p: { patternProperties: patterns(8, 100) } } };
    const thrice = { ...shared, allOf: [1, 2, 3].map(() => ({ $ref: "#/$defs/p" })) };
    assert.match(schemaFindings(thrice, "/f")[0]?.reason ?? "", /has 32 patternProperties/);
  });

  test("a schema nested past JSON.stringify's stack (an embedding caller's) is a finding", () => {
    let deep: unknown = {};
    for (let i = 0; i < 20_000; i++) deep = { not: deep };
    const [found, ms] = timed(() => schemaFindings(deep, "/f"));
    assert.match(found[0]?.reason ?? "", /deeper than the 32 levels/);
    assert.ok(ms < 1_000, `${Math.round(ms)} ms`);
  });

  test("the validator: 6,000 properties with a pattern are one finding, fast", () => {
    const vars = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 6_000 }, (_, i) => [`p${i}`, { type: "string", pattern: `^${i}$` }]),
      ),
    };
    // The language's own schema compiles on first use (a server does it before it serves).
    validateDefinition({});
    const [r, ms] = timed(() =>
      validateDefinition({ key: "k", name: "k", vars, start: "e", states: { e: { type: "end" } } }),
    );
    assert.equal(r.valid, false);
    assert.ok(!r.valid && r.errors.length === 1 && r.errors[0]!.pointer === "/vars");
    // 31.9 s before.
    assert.ok(ms < 1_000, `${Math.round(ms)} ms`);
  });
});
