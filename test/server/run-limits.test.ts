/**
 * Caps per run and the paged history over HTTP, on every deployment of
 * test/support/deployment.ts (one SQLite node; two MariaDB nodes): a signal
 * past WF_RUN_MAX_PENDING_SIGNALS or WF_RUN_MAX_HISTORY is a 409 problem and is
 * not stored, one over WF_SIGNAL_MAX_BYTES a 413; GET /v1/runs/{id}/history
 * pages by `limit` and `cursor`, and the client follows the pages.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { workflow } from "../../src/workflow.ts";
import { deployments, type Deployment } from "../support/deployment.ts";

const KEY = "limits-key-0123456789abcdefghijk";
const STEPS = 7;
const HISTORY_CAP = 10;
/** Seven steps, then it waits for a signal nobody sends (8 events): the others pile up. */
const piler = workflow("piler", async (ctx) => {
  for (let i = 0; i < STEPS; i++) await ctx.step(`s${i}`, () => i);
  return ctx.waitForSignal("never");
});
/** Only the wait (1 event). */
const waiter = workflow("waiter", (ctx) => ctx.waitForSignal("never"));

interface Problem {
  status: number;
  code: string;
  detail: string;
}

for (const kind of deployments) {
  void describe(`run limits on ${kind.name}`, async () => {
    const options = await kind.testOptions();
    if (options.skip !== undefined) {
      void test("skipped", options, () => undefined);
      return;
    }
    let deployment: Deployment;
    before(async () => {
      deployment = await kind.start(
        {
          apiKeys: [KEY],
          logLevel: "silent",
          runMaxPendingSignals: 3,
          runMaxHistory: HISTORY_CAP,
          signalMaxBytes: 1024,
        },
        { workflows: [piler, waiter], worker: { pollMs: 20, heartbeatMs: 300 } },
      );
    });
    after(() => deployment?.close());

    const call = (method: "GET" | "POST", url: string, payload?: unknown) =>
      deployment.inject({
        method,
        url,
        headers: { "x-api-key": KEY, "x-actor-id": "alice" },
        ...(payload !== undefined && { payload: payload as object }),
      });

    async function waitingRun(name: string): Promise<string> {
      const started = await call("POST", `/v1/workflows/${name}/runs`);
      assert.equal(started.statusCode, 201, started.body);
      const { runId } = started.json<{ runId: string }>();
      let status = "";
      // Up to 20 s: the machine running the suite may be busy.
      for (let i = 0; i < 800 && status !== "waiting"; i++) {
        await sleep(25);
        status = (await call("GET", `/v1/runs/${runId}`)).json<{ status: string }>().status;
      }
      assert.equal(status, "waiting");
      return runId;
    }

    void test("signals past the pending cap or the size cap are refused with a problem", async () => {
      const runId = await waitingRun("waiter");
      const big = await call("POST", `/v1/runs/${runId}/signals/go`, { blob: "x".repeat(2000) });
      assert.equal(big.statusCode, 413, big.body);
      const tooBig = big.json<Problem>();
      assert.equal(tooBig.code, "TooLarge");
      assert.match(tooBig.detail, /WF_SIGNAL_MAX_BYTES/);
      for (let i = 0; i < 3; i++) {
        const ok = await call("POST", `/v1/runs/${runId}/signals/go`, { n: i });
        assert.equal(ok.statusCode, 202, ok.body);
      }
      const fourth = await call("POST", `/v1/runs/${runId}/signals/go`, { n: 3 });
      assert.equal(fourth.statusCode, 409, fourth.body);
      assert.equal(fourth.headers["content-type"], "application/problem+json; charset=utf-8");
      const p = fourth.json<Problem>();
      assert.equal(p.code, "Conflict");
      assert.match(p.detail, /3 signals it has not consumed \(WF_RUN_MAX_PENDING_SIGNALS\)/);
    });

    void test("a signal that would pass the history cap is refused", async () => {
      const runId = await waitingRun("piler");
      const history = (await call("GET", `/v1/runs/${runId}/history`)).json<{
        items: unknown[];
      }>();
      assert.equal(history.items.length, STEPS + 1);
      // 8 events + 2 signals waiting make the cap of 10: a third signal is one too many.
      for (let i = 0; i < HISTORY_CAP - STEPS - 1; i++) {
        assert.equal((await call("POST", `/v1/runs/${runId}/signals/h`, i)).statusCode, 202);
      }
      const refused = await call("POST", `/v1/runs/${runId}/signals/h`, 9);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.match(
        refused.json<Problem>().detail,
        /would pass 10 events in its history \(WF_RUN_MAX_HISTORY\)/,
      );
    });

    void test("the history pages by limit and cursor; bad paging is a 400", async () => {
      const runId = await waitingRun("piler");
      const whole = (await call("GET", `/v1/runs/${runId}/history`)).json<{
        items: { seq: number }[];
        nextCursor: string | null;
      }>();
      assert.equal(whole.nextCursor, null);
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor === null ? "?limit=3" : `?limit=3&cursor=${cursor}`;
        const res = await call("GET", `/v1/runs/${runId}/history${q}`);
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json<{ items: { seq: number }[]; nextCursor: string | null }>();
        assert.ok(page.items.length <= 3);
        seen.push(...page.items.map((e) => e.seq));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null && pages < 20);
      assert.deepEqual(
        seen,
        whole.items.map((e) => e.seq),
      );
      assert.equal(pages, Math.ceil(whole.items.length / 3));
      for (const q of ["?limit=0", "?limit=501", "?cursor=!!", "?cursor=YWJj", "?x=1"]) {
        const bad = await call("GET", `/v1/runs/${runId}/history${q}`);
        assert.equal(bad.statusCode, 400, `${q}: ${bad.body}`);
      }
    });
  });
}
