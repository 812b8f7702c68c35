/**
 * Load shedding in-process (server/load-shedding.ts): the in-flight count and
 * the event-loop delay limit, and that health is never shed. The same under a
 * real 200-connection load, in a server process: overload.test.ts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sampleTask, stubServer, authed } from "./stub-engine.ts";

type App = Awaited<ReturnType<typeof stubServer>>;
type Answer = Awaited<ReturnType<App["inject"]>>;

function assertShed(r: Answer, why: RegExp) {
  assert.equal(r.statusCode, 503);
  assert.match(String(r.headers["content-type"]), /^application\/problem\+json/);
  assert.equal(r.headers["retry-after"], "1");
  const p = r.json<Record<string, unknown>>();
  assert.equal(p.code, "Unavailable");
  assert.equal(p.type, "urn:taskflow:problem:Unavailable");
  assert.match(String(p.detail), why);
}

/** A getTask that waits until `open()`; counts calls. */
function gate() {
  let release!: () => void;
  const opened = new Promise<void>((r) => (release = r));
  let calls = 0;
  return {
    getTask: async () => {
      calls++;
      await opened;
      return sampleTask();
    },
    open: () => release(),
    calls: () => calls,
  };
}

void describe("load shedding", () => {
  void test("past maxInFlight a /v1 request is 503 Unavailable with Retry-After; health is not shed; the count comes back", async () => {
    const g = gate();
    const app = await stubServer(
      { getTask: g.getTask },
      { overrides: { maxInFlight: 2, maxEventLoopDelay: 0 } },
    );
    try {
      const held = [app.inject({ url: "/v1/tasks/t1", headers: authed() })];
      held.push(app.inject({ url: "/v1/tasks/t2", headers: authed() }));
      while (g.calls() < 2) await sleep(1);
      assertShed(
        await app.inject({ url: "/v1/tasks/t3", headers: authed() }),
        /2 requests are in flight/,
      );
      assert.equal(g.calls(), 2, "the shed request never reached the engine");
      assert.equal((await app.inject({ url: "/healthz" })).statusCode, 200, "health is exempt");
      g.open();
      for (const r of await Promise.all(held)) assert.equal(r.statusCode, 200);
      // Both slots are free again: two more at once pass.
      const again = await Promise.all([
        app.inject({ url: "/v1/tasks/t4", headers: authed() }),
        app.inject({ url: "/v1/tasks/t5", headers: authed() }),
      ]);
      assert.deepEqual(
        again.map((r) => r.statusCode),
        [200, 200],
      );
    } finally {
      await app.close();
    }
  });

  void test("a request refused (401) or failed still frees its slot", async () => {
    const app = await stubServer(
      { getTask: () => Promise.reject(new Error("boom")) },
      { overrides: { maxInFlight: 1, maxEventLoopDelay: 0 } },
    );
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await app.inject({ url: "/v1/tasks/t1" })).statusCode, 401);
        assert.equal(
          (await app.inject({ url: "/v1/tasks/t1", headers: authed() })).statusCode,
          500,
        );
      }
    } finally {
      await app.close();
    }
  });

  void test("while the event loop lags past maxEventLoopDelay, /v1 is shed and health is not", async () => {
    const app = await stubServer(
      { getTask: () => Promise.resolve(sampleTask()) },
      { overrides: { maxInFlight: 0, maxEventLoopDelay: 20 } },
    );
    try {
      assert.equal((await app.inject({ url: "/v1/tasks/t1", headers: authed() })).statusCode, 200);
      // Block the loop in 100 ms slices for 2.5 s: at least one full 1 s sample
      // of under-pressure sees a mean delay of ~100 ms.
      const until = performance.now() + 2500;
      while (performance.now() < until) {
        const slice = performance.now() + 100;
        while (performance.now() < slice);
        await new Promise((r) => setImmediate(r));
      }
      assertShed(
        await app.inject({ url: "/v1/tasks/t1", headers: authed() }),
        /event loop is [0-9]+ ms behind \(limit 20 ms\)/,
      );
      assert.equal((await app.inject({ url: "/healthz" })).statusCode, 200, "health is exempt");
    } finally {
      await app.close();
    }
  });

  void test("after one stall that spans a whole sample (no delay measured), requests are served", async () => {
    const app = await stubServer(
      { getTask: () => Promise.resolve(sampleTask()) },
      { overrides: { maxInFlight: 0, maxEventLoopDelay: 20 } },
    );
    try {
      // 1.5 s without yielding, as a start-up that compiles schemas: under-pressure's
      // 1 s sample then holds no measurement at all (it reports Infinity).
      const until = performance.now() + 1500;
      while (performance.now() < until);
      await sleep(20); // its overdue sample runs
      const r = await app.inject({ url: "/v1/tasks/t1", headers: authed() });
      assert.equal(r.statusCode, 200, r.body);
    } finally {
      await app.close();
    }
  });

  void test("both limits off: nothing is shed", async () => {
    const g = gate();
    const app = await stubServer(
      { getTask: g.getTask },
      { overrides: { maxInFlight: 0, maxEventLoopDelay: 0 } },
    );
    try {
      const held = Array.from({ length: 50 }, () =>
        app.inject({ url: "/v1/tasks/t1", headers: authed() }),
      );
      while (g.calls() < 50) await sleep(1);
      g.open();
      for (const r of await Promise.all(held)) assert.equal(r.statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
