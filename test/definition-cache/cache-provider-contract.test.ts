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
import { coordinationTestOptions } from "../coordination/support/coordination-backends.ts";
import {
  cacheProviderNames,
  openTestCacheProvider,
  warningsOf,
  type TestCacheProvider,
} from "./support/cache-providers.ts";

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
