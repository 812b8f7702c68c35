import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cacheKey, canonicalJson } from "../../../src/engine/definition-cache/cache-key.ts";

const DEPLOYMENT = "0f3a9c2e7b6d4a1f8e5c3b2a1d0e9f8c";
const base = {
  prefix: "taskflow:defs:",
  deployment: DEPLOYMENT,
  revision: 153,
  typeName: "Page<DefinitionSummary>",
  logical: {
    tenant: "acme",
    operation: "definitions.list",
    args: { status: "published", q: "invoice" },
    page: { limit: 50, cursor: null },
    sort: ["name", "-version"],
  },
};

void describe("cache keys", () => {
  void it("are <prefix>v2:<deployment id>:<revision>:<64 hex digits>", () => {
    assert.match(cacheKey(base), new RegExp(`^taskflow:defs:v2:${DEPLOYMENT}:153:[0-9a-f]{64}$`));
    assert.match(
      cacheKey({ ...base, prefix: "" }),
      new RegExp(`^v2:${DEPLOYMENT}:153:[0-9a-f]{64}$`),
    );
    assert.match(
      cacheKey({ ...base, revision: 0n }),
      new RegExp(`^taskflow:defs:v2:${DEPLOYMENT}:0:`),
    );
    assert.match(
      cacheKey({ ...base, revision: "9007199254740993" }),
      /:9007199254740993:[0-9a-f]{64}$/,
    );
  });

  void it("of two deployments never meet, whatever the prefix and the revision", () => {
    // Two databases reach the same revision on their own: only the id tells them apart.
    assert.notEqual(cacheKey(base), cacheKey({ ...base, deployment: "another-deployment" }));
    assert.throws(() => cacheKey({ ...base, deployment: "" }), RangeError);
    assert.throws(() => cacheKey({ ...base, deployment: "a:b" }), RangeError);
  });

  void it("are the same for the same inputs, whatever the order of object keys", () => {
    const reordered = {
      ...base,
      logical: {
        sort: ["name", "-version"],
        page: { cursor: null, limit: 50 },
        args: { q: "invoice", status: "published" },
        operation: "definitions.list",
        tenant: "acme",
      },
    };
    assert.equal(cacheKey(reordered), cacheKey(base));
  });

  void it("differ when anything that shapes the result differs", () => {
    const variants = [
      base,
      { ...base, prefix: "other:" },
      { ...base, deployment: "other-deployment" },
      { ...base, revision: 154 },
      { ...base, typeName: "Page<StoredTrigger>" },
      { ...base, logical: { ...base.logical, tenant: "globex" } },
      { ...base, logical: { ...base.logical, operation: "definitions.search" } },
      { ...base, logical: { ...base.logical, args: { status: "draft", q: "invoice" } } },
      { ...base, logical: { ...base.logical, page: { limit: 50, cursor: "abc" } } },
      { ...base, logical: { ...base.logical, page: { limit: 20, cursor: null } } },
      { ...base, logical: { ...base.logical, sort: ["-version", "name"] } },
      { ...base, logical: { ...base.logical, sort: undefined } },
    ];
    const keys = variants.map(cacheKey);
    assert.equal(new Set(keys).size, variants.length);
  });

  void it("cannot be confused by values that would join into the same text", () => {
    const a = cacheKey({ ...base, logical: { tenant: "ab", operation: "c" } });
    const b = cacheKey({ ...base, logical: { tenant: "a", operation: "bc" } });
    assert.notEqual(a, b);
  });

  void it("carry no tenant data in clear", () => {
    const k = cacheKey({ ...base, logical: { ...base.logical, tenant: "secret-tenant" } });
    assert.ok(!k.includes("secret"));
  });

  void it("refuse a revision that is not a whole number, and an empty type name", () => {
    for (const revision of [-1, 1.5, "12a", "", "01"]) {
      assert.throws(() => cacheKey({ ...base, revision }), RangeError, String(revision));
    }
    assert.throws(() => cacheKey({ ...base, typeName: "" }), RangeError);
  });

  void it("canonical JSON sorts object keys at every depth and keeps array order", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [2, 1], c: null } }),
      '{"a":{"c":null,"d":[2,1]},"b":1}',
    );
  });
});
