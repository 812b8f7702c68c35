/**
 * The RateLimiters port's contract, run unchanged on every coordination
 * backend (memory, SQLite, PostgreSQL, MariaDB, Redis): the cap under real
 * concurrency, what a refusal reports, windows rolling over, where fixed and
 * sliding windows differ, multi-point consumes, reset, isolation by tenant,
 * limiter and key prefix, and input checks.
 *
 * Timing: fixed windows start at multiples of their length on the wall
 * clock, so the cases that must not cross an edge wait for a point early in a
 * window, and the edge case waits for a point late in one.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { WindowKind } from "../../src/engine/coordination/rate-limiter-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  shareOneDatabasePerBackend,
  type CoordinationBackendName,
} from "./support/coordination-backends.ts";
import {
  assertValidation,
  avoidWindowEnd,
  waitForWindowPoint,
  withCoordination,
  withOtherPrefix,
} from "./support/counter-cache-helpers.ts";

shareOneDatabasePerBackend();

const T = "acme";
const HOUR = 3_600_000;
const kinds: readonly WindowKind[] = ["fixed", "sliding"];

function registerRateLimiterCases(backend: CoordinationBackendName): void {
  for (const window of kinds) {
    void it(`${window}: 200 concurrent consumes against a cap of 50 → exactly 50 allowed`, () =>
      withCoordination(backend, async (c) => {
        await avoidWindowEnd(HOUR, 10_000);
        const limiter = c.limiters.limiter({ name: "burst", points: 50, windowMs: HOUR, window });
        const results = await Promise.all(
          Array.from({ length: 200 }, () => limiter.consume(T, "k")),
        );
        const allowed = results.filter((r) => r.allowed);
        assert.equal(allowed.length, 50);
        // Every remaining from 0 to 49 was reported exactly once by an allowed call.
        assert.deepEqual(
          allowed.map((r) => r.remaining).sort((a, b) => a - b),
          Array.from({ length: 50 }, (_, i) => i),
        );
        for (const r of results.filter((x) => !x.allowed)) {
          assert.equal(r.remaining, 0);
          assert.ok(r.retryAfterMs > 0 && r.retryAfterMs <= HOUR, String(r.retryAfterMs));
        }
      }));

    void it(`${window}: remaining counts down; a refusal says when to retry`, () =>
      withCoordination(backend, async (c) => {
        await avoidWindowEnd(60_000, 10_000);
        const limiter = c.limiters.limiter({ name: "down", points: 3, windowMs: 60_000, window });
        const seen = [];
        for (let i = 0; i < 4; i++) seen.push(await limiter.consume(T, "k"));
        assert.deepEqual(
          seen.map((r) => [r.allowed, r.remaining]),
          [
            [true, 2],
            [true, 1],
            [true, 0],
            [false, 0],
          ],
        );
        for (const r of seen.slice(0, 3)) assert.equal(r.retryAfterMs, 0);
        const refused = seen[3]!;
        assert.ok(refused.retryAfterMs > 0, `retryAfterMs ${refused.retryAfterMs}`);
        assert.ok(refused.retryAfterMs <= 60_000, `retryAfterMs ${refused.retryAfterMs}`);
      }));

    void it(`${window}: a consume of several points takes them all or none`, () =>
      withCoordination(backend, async (c) => {
        await avoidWindowEnd(60_000, 10_000);
        const limiter = c.limiters.limiter({ name: "multi", points: 10, windowMs: 60_000, window });
        assert.deepEqual(await limiter.consume(T, "k", 4), {
          allowed: true,
          remaining: 6,
          retryAfterMs: 0,
        });
        const over = await limiter.consume(T, "k", 7);
        assert.equal(over.allowed, false);
        assert.equal(over.remaining, 6, "a refused consume takes nothing");
        const exact = await limiter.consume(T, "k", 6);
        assert.deepEqual([exact.allowed, exact.remaining], [true, 0]);
        assert.equal((await limiter.consume(T, "k", 1)).allowed, false);
      }));

    void it(`${window}: reset forgets the key's count`, () =>
      withCoordination(backend, async (c) => {
        await avoidWindowEnd(60_000, 10_000);
        const limiter = c.limiters.limiter({ name: "reset", points: 2, windowMs: 60_000, window });
        await limiter.consume(T, "k", 2);
        await limiter.consume(T, "other", 2);
        assert.equal((await limiter.consume(T, "k")).allowed, false);
        await limiter.reset(T, "k");
        assert.deepEqual(await limiter.consume(T, "k"), {
          allowed: true,
          remaining: 1,
          retryAfterMs: 0,
        });
        assert.equal((await limiter.consume(T, "other")).allowed, false, "only that key");
        await limiter.reset(T, "never-used"); // resetting nothing is fine
      }));

    void it(`${window}: tenants, limiter names, keys and key prefixes are separate counters`, () =>
      withCoordination(backend, async (c, t) => {
        await avoidWindowEnd(60_000, 10_000);
        const options = { name: "iso", points: 1, windowMs: 60_000, window };
        const limiter = c.limiters.limiter(options);
        assert.equal((await limiter.consume(T, "k")).allowed, true);
        assert.equal((await limiter.consume(T, "k")).allowed, false);
        assert.equal((await limiter.consume("globex", "k")).allowed, true, "another tenant");
        assert.equal((await limiter.consume(T, "k2")).allowed, true, "another key");
        const other = c.limiters.limiter({ ...options, name: "iso2" });
        assert.equal((await other.consume(T, "k")).allowed, true, "another limiter");
        await withOtherPrefix(backend, t, async (c2) => {
          const same = c2.limiters.limiter(options);
          assert.equal((await same.consume(T, "k")).allowed, true, "another key prefix");
        });
        // A second handle on the same limiter shares the count.
        assert.equal((await c.limiters.limiter(options).consume(T, "k")).allowed, false);
      }));
  }

  void it("fixed: the count starts again when the window rolls over", () =>
    withCoordination(backend, async (c) => {
      const W = 300;
      await waitForWindowPoint(W, 0.05);
      const limiter = c.limiters.limiter({ name: "roll", points: 2, windowMs: W });
      assert.equal((await limiter.consume(T, "k", 2)).allowed, true);
      const refused = await limiter.consume(T, "k");
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= W);
      await sleep(refused.retryAfterMs + 20);
      assert.deepEqual(await limiter.consume(T, "k"), {
        allowed: true,
        remaining: 1,
        retryAfterMs: 0,
      });
    }));

  void it("sliding: points come back once a window has passed since they were taken", () =>
    withCoordination(backend, async (c) => {
      const W = 300;
      const limiter = c.limiters.limiter({
        name: "roll",
        points: 2,
        windowMs: W,
        window: "sliding",
      });
      assert.equal((await limiter.consume(T, "k", 2)).allowed, true);
      const refused = await limiter.consume(T, "k");
      assert.equal(refused.allowed, false);
      assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= W);
      // Two windows: an estimate over the previous window (SQL) has forgotten it by then too.
      await sleep(2 * W + 30);
      const again = await limiter.consume(T, "k");
      assert.deepEqual([again.allowed, again.remaining], [true, 1]);
    }));

  void it("at a fixed window's edge: fixed starts afresh, sliding still counts the points", () =>
    withCoordination(backend, async (c) => {
      const W = 1000;
      const fixed = c.limiters.limiter({ name: "edge-f", points: 5, windowMs: W });
      const sliding = c.limiters.limiter({
        name: "edge-s",
        points: 5,
        windowMs: W,
        window: "sliding",
      });
      await waitForWindowPoint(W, 0.6);
      assert.equal((await fixed.consume(T, "k", 5)).allowed, true);
      assert.equal((await sliding.consume(T, "k", 5)).allowed, true);
      await waitForWindowPoint(W, 0.03); // just past the edge
      const f = await fixed.consume(T, "k");
      const s = await sliding.consume(T, "k");
      assert.deepEqual([f.allowed, f.remaining], [true, 4], "fixed: a new window");
      assert.equal(s.allowed, false, "sliding: the 5 points of ~0.45 s ago still count");
      assert.ok(s.retryAfterMs > 0 && s.retryAfterMs <= W, String(s.retryAfterMs));
    }));

  void it("bad options and arguments are Validation errors", () =>
    withCoordination(backend, async (c) => {
      const ok = { name: "v", points: 5, windowMs: 1000 };
      for (const [what, options] of [
        ["0 points", { ...ok, points: 0 }],
        ["negative points", { ...ok, points: -3 }],
        ["fractional points", { ...ok, points: 1.5 }],
        ["0 ms window", { ...ok, windowMs: 0 }],
        ["negative window", { ...ok, windowMs: -1000 }],
        ["fractional window", { ...ok, windowMs: 10.5 }],
        ["window over 30 days", { ...ok, windowMs: 31 * 24 * HOUR }],
        ["empty name", { ...ok, name: "" }],
        ["unknown window kind", { ...ok, window: "rolling" as WindowKind }],
      ] as const) {
        await assertValidation(() => c.limiters.limiter(options).consume(T, "k"), what);
      }
      const limiter = c.limiters.limiter(ok);
      for (const [what, points] of [
        ["0 points", 0],
        ["negative points", -1],
        ["fractional points", 0.5],
        ["NaN points", Number.NaN],
      ] as const) {
        await assertValidation(() => limiter.consume(T, "k", points), what);
      }
      await assertValidation(() => limiter.consume(T, "x".repeat(513)), "a 513-character key");
      await assertValidation(() => limiter.consume(T, ""), "an empty key");
      await assertValidation(() => limiter.consume("no tenant!", "k"), "a bad tenant");
      await assertValidation(() => limiter.reset(T, "x".repeat(513)), "reset: a long key");
      await assertValidation(() => c.limiters.cleanup(0), "cleanup of 0 entries");
      // None of that took a point; a 512-character key is fine.
      assert.deepEqual(await limiter.consume(T, "k"), {
        allowed: true,
        remaining: 4,
        retryAfterMs: 0,
      });
      assert.equal((await limiter.consume(T, "x".repeat(512))).allowed, true);
    }));

  // Its own database: the SQL cleanup deletes passed counters of every key
  // prefix, so other tests' counters would change the total it checks.
  void it("cleanup removes counters whose windows have passed, at most maxEntries a call", () =>
    withCoordination(
      backend,
      async (c) => {
        const short = c.limiters.limiter({ name: "gone", points: 5, windowMs: 100 });
        const long = c.limiters.limiter({ name: "kept", points: 5, windowMs: HOUR });
        for (let i = 0; i < 5; i++) await short.consume(T, `k${i}`);
        await long.consume(T, "k", 3);
        await sleep(250);
        let total = 0;
        for (let round = 0; round < 10; round++) {
          const removed = await c.limiters.cleanup(2);
          assert.ok(removed >= 0 && removed <= 2, `removed ${removed}`);
          total += removed;
          if (removed === 0) break;
        }
        // Redis expires counters by itself: its cleanup has nothing left to remove.
        assert.equal(total, c.backend === "redis" ? 0 : 5);
        const kept = await long.consume(T, "k");
        assert.deepEqual([kept.allowed, kept.remaining], [true, 1], "a live counter stays");
      },
      { ownDatabase: true },
    ));
}

for (const backend of coordinationBackends) {
  void describe(`Rate limiter contract: ${backend}`, await coordinationTestOptions(backend), () =>
    registerRateLimiterCases(backend),
  );
}
