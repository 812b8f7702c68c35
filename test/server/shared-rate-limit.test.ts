/**
 * WF_RATE_LIMIT through the coordination: two nodes (two createTaskflow in
 * this process) on one database or one Redis prefix spend one budget; and
 * what happens while the coordination is down (Redis on a closed port):
 * rate limits fail open with one warning, or closed with 503; a request with
 * an Idempotency-Key is 503; one without it still works.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { ConfigOverrides } from "../../src/config/config.ts";
import type { Taskflow } from "../../src/composition/create-taskflow.ts";
import {
  coordinationTestOptions,
  type CoordinationBackendName,
} from "../coordination/support/coordination-backends.ts";
import { coordinatedNodes, KEY } from "./support/coordinated-nodes.ts";

const HOUR_MS = 3_600_000;
const read = (tf: Taskflow) =>
  tf.server.inject({ url: "/v1/processes", headers: { "x-api-key": KEY, "x-actor-id": "alice" } });

/** Windows start at multiples of their length: keep a burst from straddling an edge. */
async function avoidWindowEnd(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await sleep(left + 50);
}

/**
 * Not SQLite: two nodes in one process on one SQLite file block each other's
 * single thread (better-sqlite3 waits for the file lock synchronously, so the
 * holder cannot commit), which says nothing of two real processes.
 */
const shared: CoordinationBackendName[] = ["postgres", "mysql", "redis"];

for (const backend of shared) {
  void describe(`shared rate limit: ${backend}`, await coordinationTestOptions(backend), () => {
    void it("a budget of 10 across two nodes: exactly 10 of 40 concurrent requests pass", async () => {
      const nodes = await coordinatedNodes(backend, { rateLimit: "10/1h" });
      try {
        const a = await nodes.node();
        const b = await nodes.node();
        await avoidWindowEnd(HOUR_MS, 30_000);
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => read(i % 2 === 0 ? a : b)),
        );
        const byStatus = new Map<number, number>();
        for (const r of answers) byStatus.set(r.statusCode, (byStatus.get(r.statusCode) ?? 0) + 1);
        assert.deepEqual(Object.fromEntries(byStatus), { 200: 10, 429: 30 });
        const refused = answers.find((r) => r.statusCode === 429)!;
        assert.equal(refused.json<{ code: string }>().code, "RateLimited");
        assert.ok(Number(refused.headers["retry-after"]) >= 1);
        // Each node alone would have let 10 through; neither lets one more through now.
        assert.equal((await read(a)).statusCode, 429);
        assert.equal((await read(b)).statusCode, 429);
      } finally {
        await nodes.close();
      }
    });
  });
}

/** Redis on a port nothing listens on: every coordination call fails. */
const DOWN: ConfigOverrides = { redisUrl: "redis://127.0.0.1:1" };

function captureLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()),
  });
  return { lines, logger: pino({ level: "info" }, stream) };
}

void describe("coordination down (Redis on a closed port)", async () => {
  const redis = await coordinationTestOptions("redis");
  const down = (overrides: ConfigOverrides) => coordinatedNodes("redis", { ...DOWN, ...overrides });

  void it("rate limit open: requests pass, one warning for many requests", redis, async () => {
    const nodes = await down({ rateLimit: "2/1m", rateLimitOnError: "open" });
    try {
      const log = captureLog();
      const tf = await nodes.node({ logger: log.logger });
      for (let i = 0; i < 6; i++) assert.equal((await read(tf)).statusCode, 200);
      const warnings = log.lines.filter((l) => l.includes("rate limiter failed"));
      assert.equal(warnings.length, 1, log.lines.join(""));
      assert.ok(!log.lines.join("").includes(KEY), "the key is never logged");
    } finally {
      await nodes.close();
    }
  });

  void it("rate limit closed: 503 Unavailable with Retry-After", redis, async () => {
    const nodes = await down({ rateLimit: "2/1m", rateLimitOnError: "closed" });
    try {
      const tf = await nodes.node();
      for (let i = 0; i < 3; i++) {
        const r = await read(tf);
        assert.equal(r.statusCode, 503, r.body);
        assert.equal(r.json<{ code: string }>().code, "Unavailable");
        assert.equal(r.headers["retry-after"], "2");
      }
    } finally {
      await nodes.close();
    }
  });

  void it("a POST with Idempotency-Key is 503; without it, it runs", redis, async () => {
    const nodes = await down({});
    try {
      const tf = await nodes.node();
      const post = (headers: Record<string, string>) =>
        tf.server.inject({
          method: "POST",
          url: "/v1/processes",
          headers: { "x-api-key": KEY, "x-actor-id": "alice", ...headers },
          payload: { processKey: "leave" },
        });
      const refused = await post({ "idempotency-key": "k1" });
      assert.equal(refused.statusCode, 503, refused.body);
      const p = refused.json<{ code: string; detail: string }>();
      assert.equal(p.code, "Unavailable");
      assert.match(p.detail, /idempotency/);
      assert.equal(refused.headers["retry-after"], "2");
      assert.equal((await post({})).statusCode, 201);
      const list = await read(tf);
      assert.equal(list.json<{ items: unknown[] }>().items.length, 1, "only the keyless one ran");
    } finally {
      await nodes.close();
    }
  });
});
