/**
 * The definition cache provider contract, run unchanged on memory and on the
 * real Redis: hit, miss and cached null; sliding expiry extended by reads and
 * capped by the deadline; delete; a corrupt payload is a miss and one warning;
 * many concurrent gets and sets. The expiry cases use the real clock (Redis
 * expires keys by its own), with windows of hundreds of milliseconds and
 * margins of at least 300 ms either side of each boundary.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { openCacheProvider } from "../../src/adapters/definition-cache/open-cache-provider.ts";
import {
  coordinationTestOptions,
  deleteRedisPrefix,
  REDIS_TEST_URL,
} from "../coordination/support/coordination-backends.ts";
import { freePort } from "../support/server-process.ts";
import {
  cacheProviderNames,
  openTestCacheProvider,
  recordingLog,
  warningsOf,
  type TestCacheProvider,
} from "./support/cache-providers.ts";
import { startOwnRedis, stopOwnRedis } from "./support/own-redis.ts";

for (const name of cacheProviderNames) {
  const options = await coordinationTestOptions(name);

  void describe(`cache provider contract: ${name}`, options, () => {
    let t: TestCacheProvider;
    beforeEach(() => {
      t = openTestCacheProvider(name);
    });
    afterEach(async () => {
      await t.close();
    });
    const key = (k: string) => `${t.prefix}${k}`;

    void it("a miss, a hit, and a cached null that is a hit, not a miss", async () => {
      const p = t.provider;
      assert.deepEqual(await p.get(key("absent")), { hit: false });
      await p.set(key("null"), null);
      assert.deepEqual(await p.get(key("null")), { hit: true, value: null });
      const value = { id: "d1", version: 3, states: [{ name: "a" }], tags: [] };
      await p.set(key("obj"), value);
      assert.deepEqual(await p.get(key("obj")), { hit: true, value });
      for (const falsy of [false, 0, "", []]) {
        await p.set(key("falsy"), falsy);
        assert.deepEqual(await p.get(key("falsy")), { hit: true, value: falsy });
      }
      await p.set(key("obj"), { id: "d1", version: 4 });
      assert.deepEqual(await p.get(key("obj")), { hit: true, value: { id: "d1", version: 4 } });
      assert.equal(t.warnings.length, 0);
    });

    void it("what a caller does to a value it got or set never changes the entry", async () => {
      const value = { list: [1, 2] };
      await t.provider.set(key("k"), value);
      value.list.push(3);
      const got = await t.provider.get(key("k"));
      assert.ok(got.hit);
      (got.value as { list: number[] }).list.push(4);
      assert.deepEqual(await t.provider.get(key("k")), { hit: true, value: { list: [1, 2] } });
    });

    void it("a value JSON cannot carry, or no expiry at all, is the caller's error", async () => {
      await assert.rejects(t.provider.set(key("k"), undefined), TypeError);
      await assert.rejects(t.provider.set(key("k"), { n: 1n }), TypeError);
      await assert.rejects(
        t.provider.set(key("k"), 1, { slidingMs: 0, absoluteMs: 0 }),
        RangeError,
      );
      await assert.rejects(t.provider.set(key("k"), 1, { slidingMs: -1 }), RangeError);
      assert.deepEqual(await t.provider.get(key("k")), { hit: false });
    });

    void it("a read extends the sliding window", async () => {
      await t.provider.set(key("s"), "v", { slidingMs: 1000, absoluteMs: 0 });
      // Each read 500 ms after the last: 1,500 ms in all, past the first window's end.
      for (let i = 0; i < 3; i++) {
        await sleep(500);
        assert.deepEqual(await t.provider.get(key("s")), { hit: true, value: "v" }, `read ${i}`);
      }
      await sleep(1400);
      assert.deepEqual(await t.provider.get(key("s")), { hit: false });
    });

    void it("an entry nobody reads ends after its sliding window", async () => {
      await t.provider.set(key("idle"), 1, { slidingMs: 400, absoluteMs: 0 });
      await sleep(800);
      assert.deepEqual(await t.provider.get(key("idle")), { hit: false });
    });

    void it("reads never extend an entry past its absolute deadline", async () => {
      await t.provider.set(key("c"), "v", { slidingMs: 2000, absoluteMs: 2500 });
      for (let i = 0; i < 3; i++) {
        await sleep(700);
        assert.deepEqual(await t.provider.get(key("c")), { hit: true, value: "v" }, `read ${i}`);
      }
      // ~2,800 ms: the last read's sliding window would run to ~4,100 ms; the deadline was 2,500.
      await sleep(700);
      assert.deepEqual(await t.provider.get(key("c")), { hit: false });
    });

    void it("an absolute-only entry ends at its deadline however often it is read", async () => {
      await t.provider.set(key("a"), 1, { slidingMs: 0, absoluteMs: 900 });
      await sleep(400);
      assert.deepEqual(await t.provider.get(key("a")), { hit: true, value: 1 });
      await sleep(900);
      assert.deepEqual(await t.provider.get(key("a")), { hit: false });
    });

    void it("delete removes the entry; deleting what is absent is fine", async () => {
      await t.provider.set(key("d"), { a: 1 });
      await t.provider.delete(key("d"));
      assert.deepEqual(await t.provider.get(key("d")), { hit: false });
      await t.provider.delete(key("never"));
      await t.provider.set(key("d"), null);
      assert.deepEqual(await t.provider.get(key("d")), { hit: true, value: null });
    });

    void it("a corrupt payload is a miss and one warning, never an error", async () => {
      await t.provider.set(key("bad"), { ok: true });
      await t.corrupt(key("bad"));
      assert.deepEqual(await t.provider.get(key("bad")), { hit: false });
      // Dropped: the next read is a plain miss.
      assert.deepEqual(await t.provider.get(key("bad")), { hit: false });
      await t.corrupt(key("bad"));
      await t.corrupt(key("bad2"));
      assert.deepEqual(await t.provider.get(key("bad")), { hit: false });
      assert.deepEqual(await t.provider.get(key("bad2")), { hit: false });
      const corrupt = warningsOf(t.warnings, "corrupt-payload");
      assert.equal(corrupt.length, 1, JSON.stringify(t.warnings));
      assert.equal(t.warnings.length, 1);
      // A new value replaces the corrupt one and is served.
      await t.provider.set(key("bad"), 7);
      assert.deepEqual(await t.provider.get(key("bad")), { hit: true, value: 7 });
    });

    void it("many concurrent gets and sets: every hit is a value written for that key", async () => {
      const keys = Array.from({ length: 20 }, (_, i) => key(`k${i}`));
      const ops: Promise<unknown>[] = [];
      const seen: { k: string; r: Awaited<ReturnType<typeof t.provider.get>> }[] = [];
      for (let round = 0; round < 25; round++) {
        for (const k of keys) {
          ops.push(t.provider.set(k, { k, round }));
          ops.push(t.provider.get(k).then((r) => seen.push({ k, r })));
        }
      }
      const settled = await Promise.allSettled(ops);
      assert.deepEqual(
        settled.filter((s) => s.status === "rejected"),
        [],
      );
      for (const { k, r } of seen) {
        if (r.hit) assert.equal((r.value as { k: string }).k, k);
      }
      for (const k of keys) {
        const r = await t.provider.get(k);
        assert.ok(r.hit, k);
        assert.equal((r.value as { k: string }).k, k);
      }
      const same = await Promise.all(Array.from({ length: 300 }, () => t.provider.get(keys[0]!)));
      const last = same[0];
      assert.ok(last?.hit);
      for (const r of same) assert.deepEqual(r, last);
      assert.equal(t.warnings.length, 0);
    });
  });
}

void describe("cache provider: redis only", await coordinationTestOptions("redis"), () => {
  // Memory has no stored layout and no server-side expiry to inspect.
  void it("an entry is a hash { payload, slide, deadline } whose PTTL is min(slide, deadline)", async () => {
    const t = openTestCacheProvider("redis");
    const admin = new Redis(REDIS_TEST_URL);
    try {
      const k = `${t.prefix}layout`;
      await t.provider.set(k, { a: 1 }, { slidingMs: 5000, absoluteMs: 60_000 });
      const entry = await admin.hgetall(k);
      assert.equal(entry.payload, '{"a":1}');
      assert.equal(entry.slide, "5000");
      const [secs, micros] = await admin.time();
      const serverNow = Number(secs) * 1000 + Math.floor(Number(micros) / 1000);
      const deadline = Number(entry.deadline);
      assert.ok(deadline > serverNow + 59_000 && deadline <= serverNow + 60_000, entry.deadline);
      const pttl = await admin.pttl(k);
      assert.ok(pttl > 4000 && pttl <= 5000, String(pttl));
      await t.provider.set(k, null, { slidingMs: 0, absoluteMs: 3000 });
      const nulled = await admin.hgetall(k);
      assert.equal(nulled.payload, "null");
      assert.equal(nulled.slide, "0");
      const pttl2 = await admin.pttl(k);
      assert.ok(pttl2 > 2000 && pttl2 <= 3000, String(pttl2));
    } finally {
      admin.disconnect();
      await t.close();
    }
  });

  // Memory opens no connection.
  void it("a connection the host hands in is used and never closed", async () => {
    const host = new Redis(REDIS_TEST_URL);
    const log = recordingLog();
    const prefix = `tftest:defs:host${Date.now()}:`;
    try {
      const p = openCacheProvider(redisConfig(REDIS_TEST_URL), { redis: host, log });
      await p.set(`${prefix}k`, 1);
      assert.deepEqual(await p.get(`${prefix}k`), { hit: true, value: 1 });
      await p.close();
      assert.equal(await host.ping(), "PONG");
      assert.equal(log.warnings.length, 0);
    } finally {
      host.disconnect();
      await deleteRedisPrefix(prefix);
    }
  });

  // Memory cannot be unreachable.
  void it("Redis stopped: misses and no-op sets, no error to any caller, warnings rate-limited; hits resume once it is back", async () => {
    const port = await freePort();
    let server = await startOwnRedis(port);
    const log = recordingLog();
    const p = openCacheProvider(redisConfig(`redis://127.0.0.1:${port}`), { log });
    try {
      await p.set("k", { v: 1 });
      assert.deepEqual(await p.get("k"), { hit: true, value: { v: 1 } });

      await stopOwnRedis(server);
      const burst = () =>
        Promise.allSettled(
          Array.from({ length: 50 }, (_, i) => [
            p.get(`k${i % 5}`),
            p.set(`k${i % 5}`, i),
            p.delete(`x${i}`),
          ]).flat(),
        );
      for (let round = 0; round < 3; round++) {
        const started = Date.now();
        const settled = await burst();
        assert.deepEqual(
          settled.filter((s) => s.status === "rejected"),
          [],
        );
        for (const s of settled) {
          if (s.status === "fulfilled" && s.value !== undefined)
            assert.deepEqual(s.value, { hit: false });
        }
        assert.ok(Date.now() - started < 4000, `round ${round} took ${Date.now() - started} ms`);
      }
      // 450 failed calls within 10 s: at most one warning per kind.
      for (const kind of ["redis-get", "redis-set", "redis-delete"]) {
        assert.equal(
          warningsOf(log.warnings, kind).length,
          1,
          `${kind}: ${JSON.stringify(log.warnings)}`,
        );
      }
      assert.equal(log.warnings.length, 3);

      server = await startOwnRedis(port);
      const deadline = Date.now() + 10_000;
      let back = false;
      while (!back && Date.now() < deadline) {
        await p.set("k", { v: 2 });
        back = (await p.get("k")).hit;
        if (!back) await sleep(100);
      }
      assert.ok(back, "no hit within 10 s of Redis coming back");
      assert.deepEqual(await p.get("k"), { hit: true, value: { v: 2 } });
    } finally {
      await p.close();
      await stopOwnRedis(server);
    }
  });
});

void describe("cache provider: payload caching off", () => {
  // WF_DEFINITION_CACHE_ENABLED=false: nothing is read, written or dialled, whatever the provider.
  for (const kind of ["memory", "redis"] as const) {
    void it(`${kind}: every get is a miss, set and delete do nothing, no connection`, async () => {
      const log = recordingLog();
      const config = { ...redisConfig("redis://127.0.0.1:1"), definitionCache: kind };
      const p = openCacheProvider({ ...config, definitionCacheEnabled: false }, { log });
      await p.set("k", { a: 1 });
      assert.deepEqual(await p.get("k"), { hit: false });
      await p.delete("k");
      await p.close();
      // A closed port would have produced a redis-set warning had anything been dialled.
      assert.deepEqual(log.warnings, []);
    });
  }
});

function redisConfig(url: string) {
  return {
    definitionCache: "redis" as const,
    definitionCacheEnabled: true,
    definitionCacheSliding: 60_000,
    definitionCacheAbsolute: 600_000,
    redisUrl: url,
    redisSentinels: [],
    redisSentinelName: null,
  };
}
