/**
 * The validator, one named case per kind of finding, each asserting the exact
 * pointer; then a property: ≥ 1,000 mutated definitions all come back invalid
 * with findings that each have a pointer, and nothing throws.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- definitions are plain JSON documents */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import {
  validateDefinition,
  type ValidationContext,
} from "../../../src/engine/definitions/validate-definition.ts";
import { expenseApproval, minimal } from "../../support/definition-fixtures.ts";
import { mutatedDefinition } from "../../support/definition-mutations.ts";

/** The findings, as "pointer: reason". */
function findings(doc: unknown, context?: ValidationContext): string[] {
  const r = validateDefinition(doc, context);
  return r.valid ? [] : r.errors.map((e) => `${e.pointer}: ${e.reason}`);
}

/** Exactly these pointers were found (reasons matched loosely). */
function assertFindings(doc: unknown, expected: [string, RegExp][], context?: ValidationContext) {
  const got = findings(doc, context);
  assert.equal(got.length, expected.length, got.join("\n"));
  expected.forEach(([pointer, reason], i) => {
    assert.ok(got[i]!.startsWith(`${pointer}: `), `#${i}: ${got[i]} is not at ${pointer}`);
    assert.match(got[i]!, reason);
  });
}

const doc = (): Record<string, any> => minimal();

void describe("validateDefinition: each kind of finding", () => {
  test("valid fixtures are valid; without context, steps/workflows/definitions are not checked", () => {
    for (const d of [minimal(), expenseApproval()]) {
      const r = validateDefinition(d);
      assert.equal(r.valid, true, findings(d).join("\n"));
      assert.deepEqual(r.notChecked, ["steps", "workflows", "definitions"]);
    }
  });

  test("schema: missing required, unknown property, wrong type", () => {
    const d = doc();
    delete d.name;
    d.color = "red";
    d.states.review.title = 7;
    assertFindings(d, [
      ["/color", /is not a property/],
      ["/name", /is required/],
      ["/states/review/title", /must be string/],
    ]);
  });

  test("schema: a non-object is one finding at the root", () => {
    assertFindings([], [["", /must be object/]]);
    assertFindings(null, [["", /must be object/]]);
  });

  test("unknown state type names the types there are", () => {
    const d = doc();
    d.states.review.type = "humanTask";
    assertFindings(d, [
      ["/states/review/type", /unknown state type 'humanTask'; one of: userTask/],
    ]);
  });

  test("bad state name", () => {
    const d = doc();
    d.states["has space"] = { type: "end" };
    d.states.review.next = "has space";
    d.states.end = { type: "end" };
    const got = findings(d);
    assert.ok(
      got.some((g) => g.startsWith("/states/has space: is not an allowed name")),
      got.join("\n"),
    );
  });

  test("start names a missing state", () => {
    const d = doc();
    d.start = "begin";
    assertFindings(d, [
      ["/start", /names no state: 'begin'/],
      // Nothing is reachable from a start that is not there; no unreachable findings then.
    ]);
  });

  test("a dangling next, in an action and in a choice", () => {
    const d = expenseApproval();
    d.states.approve.actions.reject.next = "gone";
    d.states.route.choices[0].next = "also-gone";
    assertFindings(d, [
      ["/states/approve/actions/reject/next", /names no state: 'gone'/],
      ["/states/rejected", /unreachable/],
      ["/states/route/choices/0/next", /names no state: 'also-gone'/],
    ]);
  });

  test("a branch cannot name a state outside it", () => {
    const d = expenseApproval();
    d.states.pay.branches[0].states.charge.next = "settle";
    assertFindings(d, [
      ["/states/pay/branches/0/states/charge/next", /names no state of this branch: 'settle'/],
      ["/states/pay/branches/0/states/done", /unreachable from start 'charge'/],
    ]);
  });

  test("unreachable state", () => {
    const d = doc();
    d.states.island = { type: "end" };
    assertFindings(d, [["/states/island", /is unreachable from start 'review'/]]);
  });

  test("a loop of choice and call states only would spin", () => {
    const d = doc();
    d.start = "poll";
    d.states.poll = { type: "call", step: "check", next: "ready" };
    d.states.ready = {
      type: "choice",
      choices: [{ when: "last.done", next: "review" }],
      otherwise: "poll",
    };
    assertFindings(d, [["/states/poll", /loop through poll, ready with no waiting state/]]);
  });

  test("a loop through a timer waits, so it is fine", () => {
    const d = doc();
    d.start = "poll";
    d.states.poll = { type: "call", step: "check", next: "ready" };
    d.states.ready = {
      type: "choice",
      choices: [{ when: "last.done", next: "review" }],
      otherwise: "pause",
    };
    d.states.pause = { type: "timer", duration: "5m", next: "poll" };
    assert.deepEqual(findings(d), []);
  });

  test("a self-loop of a choice spins", () => {
    const d = doc();
    d.start = "again";
    d.states.again = {
      type: "choice",
      choices: [{ when: "true", next: "review" }],
      otherwise: "again",
    };
    assertFindings(d, [["/states/again", /loop through again/]]);
  });

  test("invalid JSONata: in a choice, in an input, in { expr }", () => {
    const d = expenseApproval();
    d.states.route.choices[0].when = "vars.amount >";
    d.states.check.input = "{ 'a': }";
    d.states.approve.assignee = { expr: "$lookup(" };
    assertFindings(d, [
      ["/states/approve/assignee/expr", /invalid JSONata at character \d+/],
      ["/states/check/input", /invalid JSONata/],
      ["/states/route/choices/0/when", /invalid JSONata/],
    ]);
  });

  test("invalid template: an unclosed hole, an empty one, a bad expression", () => {
    for (const [title, reason] of [
      ["Approve {{ vars.amount", /has a '\{\{' at character 8 with no '\}\}'/],
      ["Approve {{ }}", /empty/],
      ["Approve {{ vars.amount + }}", /invalid JSONata/],
    ] as const) {
      const d = doc();
      d.states.review.title = title;
      assertFindings(d, [["/states/review/title", reason]]);
    }
  });

  test("form and vars that are not valid JSON Schemas", () => {
    const d = doc();
    d.vars = { type: "object", requried: ["amount"] };
    d.states.review.form = { type: "object", properties: { n: { type: "integr" } } };
    assertFindings(d, [
      ["/states/review/form/properties/n/type", /is not a valid JSON Schema/],
      ["/vars", /unknown keyword: "requried"/],
    ]);
  });

  test("a form with an unresolvable $ref", () => {
    const d = doc();
    d.states.review.form = { $ref: "#/$defs/missing" };
    assertFindings(d, [
      ["/states/review/form/$ref", /'#\/\$defs\/missing', which this schema does not have/],
    ]);
  });

  test("durations: a bad one; ISO, compact, milliseconds and { expr } are fine", () => {
    const d = doc();
    d.states.review.due = "two days";
    assertFindings(d, [["/states/review/due", /none of the allowed forms/]]);
    for (const due of [
      "P2D",
      "PT1H30M",
      "P1W",
      "2d",
      "1h30m",
      "500ms",
      60000,
      { expr: "vars.due" },
    ]) {
      const ok = doc();
      ok.states.review.due = due;
      assert.deepEqual(findings(ok), [], JSON.stringify(due));
    }
  });

  test("assignee forms; a bad one is one finding", () => {
    const d = doc();
    d.states.review.assignee = { role: "x" };
    assertFindings(d, [
      ["/states/review/assignee", /\{ user \}, \{ group \}, \{ users: \[\.\.\.\] \} or \{ expr/],
    ]);
  });

  test("completion asks for more tasks than assignees; a join for more than branches", () => {
    const d = expenseApproval();
    d.states.approve.completion = { atLeast: 3 };
    d.states.pay.join = { atLeast: 5 };
    assertFindings(d, [
      ["/states/approve/completion/atLeast", /asks for 3 but there are 2 tasks/],
      ["/states/pay/join/atLeast", /asks for 5 but there are 2 branches/],
    ]);
  });

  test("a userTask needs next or actions", () => {
    const d = doc();
    delete d.states.review.next;
    assertFindings(d, [
      ["/states/end", /unreachable/],
      ["/states/review", /needs `next` or `actions`/],
    ]);
  });

  test("timer: exactly one of duration and until", () => {
    const d = doc();
    d.states.review.next = "wait";
    d.states.wait = { type: "timer", next: "end" };
    assertFindings(d, [["/states/wait/duration", /is required/]]);
    d.states.wait = { type: "timer", duration: "1d", until: "vars.at", next: "end" };
    assertFindings(d, [["/states/wait", /exclude each other/]]);
  });

  test("waitSignal: onTimeout needs a timeout", () => {
    const d = doc();
    d.states.review.next = "wait";
    d.states.wait = { type: "waitSignal", signal: "paid", onTimeout: "end", next: "end" };
    assertFindings(d, [["/states/wait/onTimeout", /needs a `timeout`/]]);
  });

  test("subProcess: definition or workflow, version only with a definition", () => {
    const d = expenseApproval();
    d.states.archive = { type: "subProcess", workflow: "w", version: 2, next: "end" };
    assertFindings(d, [["/states/archive/definition", /is required with 'version'/]]);
    d.states.archive = { type: "subProcess", workflow: "w", definition: "d", next: "end" };
    assertFindings(d, [["/states/archive", /exclude each other/]]);
  });

  test("trigger route conflicts within the definition (parameter names aside)", () => {
    const d = doc();
    d.triggers = [
      { method: "POST", path: "/orders/{id}" },
      { method: "GET", path: "/orders/{id}" },
      { method: "POST", path: "/orders/{orderId}" },
    ];
    assertFindings(d, [["/triggers/2", /POST \/orders\/\{\} is already taken by \/triggers\/0/]]);
  });

  test("trigger route conflicts with another published definition, not with its own older version", () => {
    const d = doc();
    d.triggers = [{ method: "POST", path: "/orders/{id}" }];
    const own = { key: "minimal", version: 3, method: "POST", path: "/orders/{x}" };
    assert.deepEqual(findings(d, { publishedTriggers: [own] }), []);
    const other = { key: "orders", version: 2, method: "POST", path: "/orders/{x}" };
    assertFindings(d, [["/triggers/0", /taken by definition 'orders' \(version 2\)/]], {
      publishedTriggers: [own, other],
    });
  });

  test("unknown code steps, workflows and definitions when the context lists them", () => {
    const d = expenseApproval();
    const context = {
      steps: new Set(["check-budget"]),
      workflows: new Set<string>(),
      definitions: new Set(["expense-approval"]),
    };
    const r = validateDefinition(d, context);
    assert.deepEqual(r.notChecked, []);
    assertFindings(
      d,
      [
        ["/states/pay/branches/0/states/charge/step", /names no known code step: 'charge-card'/],
        [
          "/states/pay/branches/1/states/notify/workflow",
          /names no known workflow: 'send-receipt'/,
        ],
      ],
      context,
    );
  });

  test("every finding at once, sorted by pointer", () => {
    const d = expenseApproval();
    delete d.name;
    d.states.route.choices[0].when = "(";
    d.states.approve.actions.approve.next = "nowhere";
    d.states.approve.form = { type: 5 };
    d.triggers.push({ ...d.triggers[0] });
    const got = findings(d).map((f) => f.split(": ")[0]);
    assert.deepEqual(got, [...got].sort());
    for (const p of [
      "/name",
      "/states/route/choices/0/when",
      "/states/approve/actions/approve/next",
      "/states/approve/form/type",
      "/triggers/1",
    ]) {
      assert.ok(got.includes(p), `${p} in ${got.join(", ")}`);
    }
  });
});

void describe("validateDefinition: property", () => {
  test("1,000+ mutated definitions: each invalid, each finding with a pointer and a reason, no throw", () => {
    let runs = 0;
    fc.assert(
      fc.property(mutatedDefinition(), (d) => {
        runs++;
        const r = validateDefinition(d);
        assert.equal(r.valid, false, JSON.stringify(d));
        if (r.valid) return;
        assert.ok(r.errors.length > 0);
        for (const e of r.errors) {
          assert.equal(typeof e.pointer, "string");
          assert.ok(e.pointer === "" || e.pointer.startsWith("/"), e.pointer);
          assert.ok(typeof e.reason === "string" && e.reason.length > 0);
        }
      }),
      { numRuns: 1200, seed: 424242 },
    );
    assert.ok(runs >= 1000);
  });

  test("arbitrary JSON never throws", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const r = validateDefinition(v);
        assert.equal(r.valid, false);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

void describe("validateDefinition: size", () => {
  test("a chain of 20,000 states is one schema finding, not a stack overflow", () => {
    const states: Record<string, unknown> = {};
    for (let i = 0; i < 20_000; i++)
      states[`s${i}`] = { type: "call", step: "x", next: `s${i + 1}` };
    states["s20000"] = { type: "end" };
    const r = validateDefinition({ key: "big", name: "Big", start: "s0", states });
    assert.equal(r.valid, false);
    if (!r.valid)
      assert.deepEqual(
        r.errors.map((e) => e.pointer),
        ["/states"],
      );
  });

  test("500 states in a chain are walked (the limit itself)", () => {
    const states: Record<string, unknown> = {};
    for (let i = 0; i < 499; i++) states[`s${i}`] = { type: "call", step: "x", next: `s${i + 1}` };
    states["s499"] = { type: "end" };
    assert.equal(validateDefinition({ key: "big", name: "Big", start: "s0", states }).valid, true);
  });
});
