/**
 * The TtlCache port's contract, run unchanged on every coordination backend
 * (memory, SQLite, PostgreSQL, MariaDB, Redis): JSON round trips, lazy
 * expiry, setIfAbsent and compareAndSet under real races, delete, the bounded
 * cleanup, isolation by tenant and key prefix, and input checks.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { MAX_CACHE_VALUE_BYTES } from "../../src/engine/coordination/limits.ts";
import type { JsonValue } from "../../src/engine/coordination/ttl-cache-port.ts";
import {
  coordinationBackends,
  coordinationTestOptions,
  shareOneDatabasePerBackend,
  type CoordinationBackendName,
} from "./support/coordination-backends.ts";
import {
  assertExactlyOne,
  assertValidation,
  withCoordination,
  withOtherPrefix,
} from "./support/counter-cache-helpers.ts";

shareOneDatabasePerBackend();

const T = "acme";
const MINUTE = 60_000;

const nested: JsonValue = {
  user: { id: "u-1", roles: ["admin", "ops"], quota: { used: 3, max: 10.5 } },
  flags: [true, false, null],
  text: "naïve ☃ \u0000 \ud83d\ude00 'quotes' \"double\"",
  empty: {},
  list: [],
};

function registerTtlCacheCases(backend: CoordinationBackendName): void {
  void it("set then get returns the same JSON; set overwrites; absent is undefined", () =>
    withCoordination(backend, async (c) => {
      assert.equal(await c.cache.get(T, "k"), undefined);
      await c.cache.set(T, "k", nested, MINUTE);
      assert.deepEqual(await c.cache.get(T, "k"), nested);
      for (const v of [0, -1.25, "", "s", true, false, null, [1, [2, [3]]]] as JsonValue[]) {
        await c.cache.set(T, "k", v, MINUTE);
        assert.deepEqual(await c.cache.get(T, "k"), v, JSON.stringify(v));
      }
      const key = "k:".repeat(256); // 512 characters, with the separator inside
      await c.cache.set(T, key, "long", MINUTE);
      assert.equal(await c.cache.get(T, key), "long");
    }));

  void it("an entry past its TTL reads as absent and may be set again", () =>
    withCoordination(backend, async (c) => {
      await c.cache.set(T, "short", "v1", 150);
      await c.cache.set(T, "long", "v2", MINUTE);
      assert.equal(await c.cache.get(T, "short"), "v1");
      await sleep(300);
      assert.equal(await c.cache.get(T, "short"), undefined);
      assert.equal(await c.cache.get(T, "long"), "v2");
      assert.equal(await c.cache.compareAndSet(T, "short", "v1", "v3", MINUTE), false);
      assert.equal(await c.cache.delete(T, "short"), false, "an expired entry is not deleted");
      await c.cache.set(T, "renew", "r", 150);
      await c.cache.set(T, "renew", "r", MINUTE); // set renews the TTL
      await sleep(300);
      assert.equal(await c.cache.get(T, "renew"), "r");
    }));

  void it("setIfAbsent: 20 concurrent callers, exactly one sets; expired counts as absent", () =>
    withCoordination(backend, async (c) => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => c.cache.setIfAbsent(T, "race", { by: i }, MINUTE)),
      );
      assertExactlyOne(results, "setIfAbsent winners");
      assert.deepEqual(await c.cache.get(T, "race"), { by: results.indexOf(true) });
      assert.equal(await c.cache.setIfAbsent(T, "race", "late", MINUTE), false);

      await c.cache.set(T, "old", "stale", 100);
      await sleep(250);
      const again = await Promise.all(
        Array.from({ length: 20 }, (_, i) => c.cache.setIfAbsent(T, "old", i, MINUTE)),
      );
      assertExactlyOne(again, "setIfAbsent over an expired entry");
      assert.equal(await c.cache.get(T, "old"), again.indexOf(true));
    }));

  void it("compareAndSet: 20 concurrent from the same expected value, exactly one wins", () =>
    withCoordination(backend, async (c) => {
      const start = { version: 1, items: ["a"] };
      await c.cache.set(T, "doc", start, MINUTE);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          c.cache.compareAndSet(T, "doc", start, { version: 2, by: i }, MINUTE),
        ),
      );
      assertExactlyOne(results, "compareAndSet winners");
      assert.deepEqual(await c.cache.get(T, "doc"), { version: 2, by: results.indexOf(true) });
      // The comparison is by JSON text: the loser's expectation no longer matches.
      assert.equal(await c.cache.compareAndSet(T, "doc", start, "x", MINUTE), false);
      assert.equal(await c.cache.compareAndSet(T, "absent", null, "x", MINUTE), false);
      assert.equal(await c.cache.get(T, "absent"), undefined, "CAS never creates");
      // A CAS sets the new TTL.
      const now = await c.cache.get(T, "doc");
      assert.equal(await c.cache.compareAndSet(T, "doc", now!, "short", 100), true);
      await sleep(250);
      assert.equal(await c.cache.get(T, "doc"), undefined);
    }));

  void it("delete: true once for a live entry, false when absent", () =>
    withCoordination(backend, async (c) => {
      await c.cache.set(T, "k", [1, 2], MINUTE);
      assert.equal(await c.cache.delete(T, "k"), true);
      assert.equal(await c.cache.get(T, "k"), undefined);
      assert.equal(await c.cache.delete(T, "k"), false);
      assert.equal(await c.cache.delete(T, "never"), false);
      assert.equal(await c.cache.setIfAbsent(T, "k", "again", MINUTE), true);
    }));

  // Its own database: the SQL cleanup deletes expired entries of every key
  // prefix, so other tests' rows would change the counts it checks.
  void it("cleanup removes only expired entries, at most maxEntries a call", () =>
    withCoordination(
      backend,
      async (c) => {
        for (let i = 0; i < 5; i++) await c.cache.set(i % 2 ? T : "globex", `gone${i}`, i, 100);
        for (let i = 0; i < 3; i++) await c.cache.set(T, `kept${i}`, { i }, MINUTE);
        await sleep(250);
        const removed: number[] = [];
        for (let round = 0; round < 10; round++) {
          const n = await c.cache.cleanup(2);
          assert.ok(n >= 0 && n <= 2, `removed ${n}`);
          removed.push(n);
          if (n === 0) break;
        }
        // Redis deletes expired keys itself: its cleanup finds nothing to do.
        assert.deepEqual(removed, c.backend === "redis" ? [0] : [2, 2, 1, 0]);
        for (let i = 0; i < 3; i++) assert.deepEqual(await c.cache.get(T, `kept${i}`), { i });
        await assertValidation(() => c.cache.cleanup(0), "cleanup(0)");
        await assertValidation(() => c.cache.cleanup(1.5), "cleanup(1.5)");
      },
      { ownDatabase: true },
    ));

  void it("tenants and key prefixes are separate caches", () =>
    withCoordination(backend, async (c, t) => {
      await c.cache.set(T, "k", "acme's", MINUTE);
      assert.equal(await c.cache.get("globex", "k"), undefined);
      assert.equal(await c.cache.setIfAbsent("globex", "k", "globex's", MINUTE), true);
      assert.equal(await c.cache.get(T, "k"), "acme's");
      await withOtherPrefix(backend, t, async (c2) => {
        assert.equal(await c2.cache.get(T, "k"), undefined);
        await c2.cache.set(T, "k", "other prefix", MINUTE);
        assert.equal(await c2.cache.delete(T, "k"), true);
      });
      assert.equal(await c.cache.get(T, "k"), "acme's");
    }));

  void it("values up to 1 MiB of JSON are kept; larger ones are Validation errors", () =>
    withCoordination(backend, async (c) => {
      const largest = "x".repeat(MAX_CACHE_VALUE_BYTES - 2); // plus two quotes
      await c.cache.set(T, "big", largest, MINUTE);
      assert.equal(await c.cache.get(T, "big"), largest);
      const tooBig = "x".repeat(MAX_CACHE_VALUE_BYTES - 1);
      await assertValidation(() => c.cache.set(T, "k", tooBig, MINUTE), "set: 1 MiB + 1 byte");
      await assertValidation(
        () => c.cache.setIfAbsent(T, "k", { v: tooBig }, MINUTE),
        "setIfAbsent: oversize",
      );
      await assertValidation(
        () => c.cache.compareAndSet(T, "big", largest, [tooBig], MINUTE),
        "compareAndSet: oversize next",
      );
      // Multi-byte characters count as bytes, not characters.
      const snowmen = "☃".repeat(Math.ceil(MAX_CACHE_VALUE_BYTES / 3));
      await assertValidation(() => c.cache.set(T, "k", snowmen, MINUTE), "set: 1 MiB of ☃");
      assert.equal(await c.cache.get(T, "k"), undefined, "nothing was stored");
    }));

  void it("bad keys, tenants, TTLs and values are Validation errors", () =>
    withCoordination(backend, async (c) => {
      const long = "x".repeat(513);
      for (const [what, call] of [
        ["get: 513-character key", () => c.cache.get(T, long)],
        ["get: empty key", () => c.cache.get(T, "")],
        ["get: bad tenant", () => c.cache.get("a/b", "k")],
        ["set: long key", () => c.cache.set(T, long, 1, MINUTE)],
        ["set: 0 TTL", () => c.cache.set(T, "k", 1, 0)],
        ["set: negative TTL", () => c.cache.set(T, "k", 1, -5)],
        ["set: fractional TTL", () => c.cache.set(T, "k", 1, 1.5)],
        ["set: TTL over 30 days", () => c.cache.set(T, "k", 1, 31 * 24 * 60 * MINUTE)],
        ["set: not JSON", () => c.cache.set(T, "k", 10n as unknown as JsonValue, MINUTE)],
        ["set: undefined", () => c.cache.set(T, "k", undefined as unknown as JsonValue, MINUTE)],
        ["setIfAbsent: 0 TTL", () => c.cache.setIfAbsent(T, "k", 1, 0)],
        ["setIfAbsent: long key", () => c.cache.setIfAbsent(T, long, 1, MINUTE)],
        ["delete: long key", () => c.cache.delete(T, long)],
        ["compareAndSet: 0 TTL", () => c.cache.compareAndSet(T, "k", 1, 2, 0)],
        ["compareAndSet: bad tenant", () => c.cache.compareAndSet("", "k", 1, 2, MINUTE)],
      ] as const) {
        await assertValidation(call, what);
      }
      assert.equal(await c.cache.get(T, "k"), undefined, "none of them stored anything");
    }));
}

for (const backend of coordinationBackends) {
  void describe(`TTL cache contract: ${backend}`, await coordinationTestOptions(backend), () =>
    registerTtlCacheCases(backend),
  );
}
