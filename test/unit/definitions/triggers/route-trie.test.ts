/**
 * The trigger matcher without a database: the segment trie and the per-tenant
 * table over it. Properties (fast-check): a route added is found with its
 * parameters; a literal segment wins over a parameter; a path of another
 * tenant is never found.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { compileTenants } from "../../../../src/engine/definitions/triggers/compile-route-table.ts";
import {
  RouteTable,
  requestSegments,
  type RouteTarget,
} from "../../../../src/engine/definitions/triggers/route-table.ts";
import { RouteTrie, segmentsOf } from "../../../../src/engine/definitions/triggers/route-trie.ts";

const target = (key: string, path = "/"): RouteTarget => ({
  key,
  version: 1,
  path,
  responds: false,
});

function trieOf(routes: [string, string][]): RouteTrie<RouteTarget> {
  const trie = new RouteTrie<RouteTarget>();
  for (const [method, path] of routes) trie.add(method, path, target(`${method} ${path}`, path));
  return trie;
}

function matchIn(routes: [string, string][], method: string, path: string) {
  return new RouteTable(new Map([["t", trieOf(routes)]])).match("t", method, segmentsOf(path));
}

void describe("route trie", () => {
  void it("literal segments, parameters, the root and a trailing slash", () => {
    const routes: [string, string][] = [
      ["GET", "/"],
      ["POST", "/orders"],
      ["GET", "/orders/{id}"],
      ["GET", "/orders/new"],
      ["PUT", "/orders/{id}/items/{item}"],
    ];
    assert.deepEqual(matchIn(routes, "GET", "/"), {
      kind: "match",
      target: target("GET /", "/"),
      params: {},
    });
    assert.equal(matchIn(routes, "POST", "/orders/").kind, "match");
    assert.deepEqual(matchIn(routes, "GET", "/orders/42"), {
      kind: "match",
      target: target("GET /orders/{id}", "/orders/{id}"),
      params: { id: "42" },
    });
    const lit = matchIn(routes, "GET", "/orders/new");
    assert.equal(lit.kind === "match" && lit.target.key, "GET /orders/new");
    const deep = matchIn(routes, "PUT", "/orders/new/items/7");
    assert.deepEqual(deep.kind === "match" && deep.params, { id: "new", item: "7" });
    assert.deepEqual(matchIn(routes, "DELETE", "/orders/1"), { kind: "method", allow: ["GET"] });
    assert.deepEqual(matchIn(routes, "POST", "/orders/new"), {
      kind: "method",
      allow: ["GET"],
    });
    assert.deepEqual(matchIn(routes, "PATCH", "/orders"), { kind: "method", allow: ["POST"] });
    assert.equal(matchIn(routes, "GET", "/orders/1/items").kind, "none");
    assert.equal(matchIn(routes, "GET", "/orders//items/1").kind, "none");
    assert.equal(matchIn(routes, "GET", "/nothing").kind, "none");
  });

  void it("one shape per method: the first added keeps it", () => {
    const trie = new RouteTrie<RouteTarget>();
    assert.equal(trie.add("GET", "/a/{x}", target("first")), true);
    assert.equal(trie.add("GET", "/a/{y}", target("second")), false);
    assert.equal(trie.add("POST", "/a/{y}", target("third")), true);
    assert.equal(trie.size, 2);
  });

  void it("request segments are percent-decoded; bad encoding is null", () => {
    assert.deepEqual(requestSegments("/a%20b/%2F/c"), ["a b", "/", "c"]);
    assert.equal(requestSegments("/a/%E0%A4%A"), null);
    assert.deepEqual(requestSegments("/"), []);
  });

  void it("tenants are apart; heads without triggers add no tenant", () => {
    const body = (path: string) =>
      JSON.stringify({ key: "k", triggers: [{ method: "POST", path }] });
    const tenants = compileTenants([
      { tenantId: "a", key: "k", version: 2, body: body("/in") },
      { tenantId: "b", key: "k", version: 1, body: JSON.stringify({ key: "k" }) },
    ]);
    const table = new RouteTable(tenants);
    assert.deepEqual([...tenants.keys()], ["a"]);
    assert.equal(table.match("a", "POST", ["in"]).kind, "match");
    assert.equal(table.match("b", "POST", ["in"]).kind, "none");
  });
});

const literal = fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/);
const paramName = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/);
const segment = fc.oneof(
  literal.map((s) => ({ literal: s })),
  paramName.map((name) => ({ param: name })),
);
// Parameter names are unique within a template (the validator's rule too).
const template = fc
  .array(segment, { minLength: 0, maxLength: 6 })
  .map((segs) => segs.map((s, i) => ("param" in s ? { param: `${s.param}${i}` } : s)));
const method = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE");
type Seg = { literal: string } | { param: string };
const pathOf = (segs: Seg[]) =>
  "/" + segs.map((s) => ("literal" in s ? s.literal : `{${s.param}}`)).join("/");

void describe("route trie properties", () => {
  void it("a route added is found, with its parameters, whatever else is there", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(method, template), { maxLength: 30 }),
        method,
        template,
        fc.array(fc.stringMatching(/^[^/]{1,10}$/), { minLength: 6, maxLength: 6 }),
        (others, m, segs, values) => {
          const trie = new RouteTrie<RouteTarget>();
          const path = pathOf(segs);
          trie.add(m, path, target("mine", path));
          for (const [om, os] of others) trie.add(om, pathOf(os), target("other"));
          // A NUL makes each value no literal of any route (literals are URL-safe characters).
          const request = segs.map((s, i) => ("literal" in s ? s.literal : `${values[i]}\u0000`));
          const found = new RouteTable(new Map([["t", trie]])).match("t", m, request);
          const expected: Record<string, string> = {};
          segs.forEach((s, i) => {
            if ("param" in s) expected[s.param] = request[i]!;
          });
          assert.deepEqual(found, {
            kind: "match",
            target: target("mine", path),
            params: expected,
          });
        },
      ),
      { numRuns: 500 },
    );
  });

  void it("a literal route of another method does not hide a parameter route", () => {
    const found = matchIn(
      [
        ["GET", "/orders/new"],
        ["POST", "/orders/{id}"],
      ],
      "POST",
      "/orders/new",
    );
    assert.deepEqual(found.kind === "match" && found.params, { id: "new" });
    const allow = matchIn(
      [
        ["GET", "/orders/new"],
        ["POST", "/orders/{id}"],
      ],
      "PUT",
      "/orders/new",
    );
    assert.deepEqual(allow, { kind: "method", allow: ["GET", "POST"] });
  });

  void it("a literal segment wins over a parameter at the same place", () => {
    fc.assert(
      fc.property(
        method,
        fc.array(literal, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        paramName,
        (m, lits, at, name) => {
          const i = at % lits.length;
          const withParam = lits.map((l, j) => (j === i ? `{${name}}` : l));
          const trie = new RouteTrie<RouteTarget>();
          // The parameter route first: insertion order must not matter.
          trie.add(m, "/" + withParam.join("/"), target("param"));
          trie.add(m, "/" + lits.join("/"), target("literal"));
          const table = new RouteTable(new Map([["t", trie]]));
          const exact = table.match("t", m, lits);
          assert.equal(exact.kind === "match" && exact.target.key, "literal");
          const other = lits.map((l, j) => (j === i ? `${l}~x` : l));
          const viaParam = table.match("t", m, other);
          assert.equal(viaParam.kind === "match" && viaParam.target.key, "param");
          assert.deepEqual(viaParam.kind === "match" && viaParam.params, { [name]: other[i] });
        },
      ),
      { numRuns: 500 },
    );
  });

  void it("a route of one tenant is never found for another", () => {
    fc.assert(
      fc.property(method, template, (m, segs) => {
        const table = new RouteTable(new Map([["a", trieOf([[m, pathOf(segs)]])]]));
        const request = segs.map((s) => ("literal" in s ? s.literal : "v"));
        assert.equal(table.match("a", m, request).kind, "match");
        assert.equal(table.match("b", m, request).kind, "none");
      }),
    );
  });
});
