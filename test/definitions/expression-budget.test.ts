/**
 * The expression budget (docs/definitions.md, Expressions and templates): the
 * expressions of issue 21 — a tail recursion that never ends, one that grows
 * the heap, `$pad("", 1e8)`, a 3e6 range reduced, a backtracking regex, `$eval`,
 * a result too large to keep
 * — each fail with a typed error in bounded time, while the event loop keeps
 * turning (it froze for good, or for seconds, when JSONata ran in-process) and
 * another evaluation is answered meanwhile. Then through the interpreter on
 * SQLite and PostgreSQL: the run fails with the failure type, and a JSONata runtime error reads
 * as JSONata's message, not "[object Object]".
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  ExpressionBudgetExceeded,
  ExpressionError,
} from "../../src/engine/definitions/expression-budget.ts";
import { ExpressionSandbox } from "../../src/engine/definitions/expression-sandbox.ts";
import { backends, backendTestOptions } from "../support/backends.ts";
import { interpreterOn } from "./support/interpreter-env.ts";

/** The longest the event loop went without a turn while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const beat = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 10);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last);
    return { value, stallMs };
  } finally {
    clearInterval(beat);
  }
}

const doc = { vars: { s: "a".repeat(28) + "!", n: 2 }, last: null };

/** What each expression of the issue must end in. */
const BAD: [string, RegExp, string][] = [
  ["($f := function($x){$f($x)}; $f(1))", /ran longer than its 1000 ms/, "time"],
  ["($f := function($x){ 1 + $f($x) }; $f(1))", /nested deeper than 500/, "depth"],
  ['$pad("", 1e8)', /needed more than its 64 MiB|ran longer/, "memory|time"],
  ["$reduce([1..3e6], function($a, $b){ $a + $b })", /sequence longer than 100000/, "sequence"],
  ['$pad("x", 2e6)', /returned more than 1000000 characters of JSON/, "result"],
];

let sandbox: ExpressionSandbox;
before(() => {
  sandbox = new ExpressionSandbox();
});
after(() => sandbox.close());

/** Both children up (one may have been replaced by the test before): a start is not what is timed. */
const warm = () =>
  Promise.all([1, 2].map(() => sandbox.evaluate({ text: "1", doc, bindings: {} })));

void describe("the expression sandbox", () => {
  test("a good expression answers in its JSON form, with the recorded clock and dice", async () => {
    const v = await sandbox.evaluate({
      text: '{ "n": vars.n + 1, "t": $now(), "m": $millis(), "r": $random(), "none": vars.missing }',
      doc,
      bindings: { runId: "r-1" },
      clock: Date.parse("2025-01-15T09:30:00.000Z"),
      random: 0.25,
    });
    assert.deepEqual(v, { n: 3, t: "2025-01-15T09:30:00.000Z", m: 1736933400000, r: 0.25 });
    assert.equal(await sandbox.evaluate({ text: "vars.missing", doc, bindings: {} }), null);
    assert.equal(
      await sandbox.evaluate({ text: "$runId", doc, bindings: { runId: "r-1" } }),
      "r-1",
    );
  });

  for (const [text, message, limit] of BAD) {
    test(`${text}: ExpressionBudgetExceeded (${limit}) within 3 s, the event loop turning`, async () => {
      const t0 = performance.now();
      const { value: error, stallMs } = await longestStall(() =>
        sandbox.evaluate({ text, doc, bindings: {} }).then(
          () => assert.fail("evaluated"),
          (e: unknown) => e,
        ),
      );
      assert.ok(error instanceof ExpressionBudgetExceeded, String(error));
      assert.match(error.message, message);
      assert.match(error.limit, new RegExp(`^(${limit})$`));
      assert.ok(performance.now() - t0 < 3_000, `took ${performance.now() - t0} ms`);
      // The event loop is never the one waiting (slack for a loaded machine).
      assert.ok(stallMs < 500, `the event loop stalled ${stallMs} ms`);
    });
  }

  test("a backtracking regex matches in linear time (RE2), and $eval is not there", async () => {
    const { value, stallMs } = await longestStall(() =>
      sandbox.evaluate({ text: "$contains(vars.s, /^(a+)+$/)", doc, bindings: {} }),
    );
    assert.equal(value, false);
    assert.ok(stallMs < 500, `the event loop stalled ${stallMs} ms`);
    await assert.rejects(
      sandbox.evaluate({ text: '$eval("1 + 1")', doc, bindings: {} }),
      (e: unknown) => e instanceof ExpressionError && /\$eval is not available/.test(e.message),
    );
  });

  test("a spinning expression holds one child: another evaluation is answered meanwhile", async () => {
    await warm();
    const spinning = sandbox
      .evaluate({ text: "($f := function($x){$f($x)}; $f(1))", doc, bindings: {} })
      .catch((e: unknown) => e);
    const t0 = performance.now();
    assert.equal(await sandbox.evaluate({ text: "vars.n * 21", doc, bindings: {} }), 42);
    assert.ok(performance.now() - t0 < 900, `answered after ${performance.now() - t0} ms`);
    assert.ok((await spinning) instanceof ExpressionBudgetExceeded);
  });

  test("one tenant's spinning expressions make another's wait at most one budget", async () => {
    await warm();
    const spin = "($f := function($x){$f($x)}; $f(1))";
    // Eight for tenant a: four budgets' worth of both children, in order of arrival.
    const spinning = Array.from({ length: 8 }, () =>
      sandbox.evaluate({ text: spin, doc, bindings: {} }, "a").catch((e: unknown) => e),
    );
    const t0 = performance.now();
    assert.equal(await sandbox.evaluate({ text: "vars.n", doc, bindings: {} }, "b"), 2);
    const waited = performance.now() - t0;
    // The first child to come free goes to b (~1 s); in arrival order b would wait ~4 s.
    assert.ok(waited < 2_500, `b waited ${Math.round(waited)} ms`);
    for (const e of await Promise.all(spinning)) assert.ok(e instanceof ExpressionBudgetExceeded);
  });

  test("a JSONata runtime error is JSONata's message with its code and position", async () => {
    await assert.rejects(
      sandbox.evaluate({ text: 'vars.n + "a"', doc, bindings: {} }),
      (e: unknown) =>
        e instanceof ExpressionError &&
        e.code === "T2002" &&
        /^JSONata error T2002 at character \d+: The right side of the "\+" operator must evaluate to a number$/.test(
          e.message,
        ),
    );
  });
});

// SQLite, and PostgreSQL where separate worker processes froze with the node.
for (const b of backends.filter((x) => x.name !== "mysql")) {
  void describe(`through the interpreter (${b.name})`, async () => {
    type Env = Awaited<ReturnType<typeof interpreterOn>>;
    let env: Env;
    const options = await backendTestOptions(b);
    if (options.skip !== undefined) return void test("skipped", options, () => undefined);
    before(async () => {
      env = await interpreterOn(b);
    });
    after(async () => {
      await env?.close();
    });

    const choosing = (key: string, when: string) => ({
      key,
      name: key,
      start: "route",
      states: {
        route: { type: "choice", choices: [{ when, next: "yes" }], otherwise: "no" },
        yes: { type: "end" },
        no: { type: "end" },
      },
    });

    test("a choice that never ends fails its run with the typed failure; a good run completes", async () => {
      const bad = await env.publish(choosing("spin", "($f := function($x){$f($x)}; $f(1))"));
      const good = await env.publish(choosing("fine", "vars.n > 1"));
      await env.start("spin", bad, {}, "spin-1");
      await env.start("fine", good, { n: 2 }, "fine-1");
      const { value: outcomes, stallMs } = await longestStall(() => env.h.drain());
      assert.deepEqual([...outcomes].sort(), ["completed", "failed"]);
      assert.ok(stallMs < 500, `the event loop stalled ${stallMs} ms`);
      const failed = await env.run("spin-1");
      assert.equal(failed.status, "failed");
      assert.equal(failed.error?.name, "ExpressionBudgetExceeded");
      assert.equal(failed.error?.type, "expression-budget");
      assert.equal(failed.error?.nonRetryable, true);
      assert.match(failed.error?.message ?? "", /ran longer than its 1000 ms/);
      assert.equal((await env.run("fine-1")).status, "completed");
    });

    test('a JSONata runtime error fails the run with its message, not "[object Object]"', async () => {
      const v = await env.publish(choosing("typo", 'vars.n + "a" > 1'));
      await env.start("typo", v, { n: 2 }, "typo-1");
      assert.deepEqual(await env.h.drain(), ["failed"]);
      const run = await env.run("typo-1");
      assert.equal(run.error?.name, "ExpressionError");
      assert.equal(run.error?.type, "expression");
      assert.match(
        run.error?.message ?? "",
        /^JSONata error T2002 at character \d+: The right side/,
      );
    });
  });
}
