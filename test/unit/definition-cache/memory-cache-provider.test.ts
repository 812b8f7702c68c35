/**
 * The memory provider's expiry on a clock the test moves: the sliding window
 * moves with every hit, never past the deadline, to the millisecond.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { memoryCacheProvider } from "../../../src/adapters/definition-cache/memory-cache-provider.ts";
import { warnLimiter } from "../../../src/adapters/definition-cache/warn-limiter.ts";

function setup(defaults = { slidingMs: 1000, absoluteMs: 5000 }, maxEntries?: number) {
  let now = 1_000_000;
  const warnings: Record<string, unknown>[] = [];
  const provider = memoryCacheProvider({
    defaults,
    maxEntries,
    now: () => now,
    log: { warn: (fields) => warnings.push(fields) },
  });
  return { provider, warnings, advance: (ms: number) => (now += ms) };
}

const HIT = { hit: true, value: "v" };
const MISS = { hit: false };

void describe("memory cache provider: expiry on a controlled clock", () => {
  void it("an unread entry ends exactly slidingMs after the write", async () => {
    const { provider, advance } = setup();
    await provider.set("k", "v");
    advance(999);
    assert.deepEqual(await provider.get("k"), HIT);
    const other = setup();
    await other.provider.set("k", "v");
    other.advance(1000);
    assert.deepEqual(await other.provider.get("k"), MISS);
  });

  void it("each hit moves the end to slidingMs after that hit", async () => {
    const { provider, advance } = setup({ slidingMs: 1000, absoluteMs: 0 });
    await provider.set("k", "v");
    for (let i = 0; i < 20; i++) {
      advance(900);
      assert.deepEqual(await provider.get("k"), HIT, `hit ${i}`);
    }
    advance(999);
    assert.deepEqual(await provider.get("k"), HIT);
    advance(1000);
    assert.deepEqual(await provider.get("k"), MISS);
  });

  void it("hits never carry an entry past its deadline", async () => {
    const { provider, advance } = setup({ slidingMs: 1000, absoluteMs: 2500 });
    await provider.set("k", "v");
    advance(900);
    assert.deepEqual(await provider.get("k"), HIT);
    advance(900);
    assert.deepEqual(await provider.get("k"), HIT);
    advance(699); // 2,499 ms after the write
    assert.deepEqual(await provider.get("k"), HIT);
    advance(1); // the deadline, though the last hit's window runs to 3,499
    assert.deepEqual(await provider.get("k"), MISS);
  });

  void it("per-entry options override the defaults; 0 turns a bound off", async () => {
    const { provider, advance } = setup({ slidingMs: 1000, absoluteMs: 5000 });
    await provider.set("abs", "v", { slidingMs: 0 });
    await provider.set("long", "v", { slidingMs: 10_000, absoluteMs: 0 });
    advance(4999);
    assert.deepEqual(await provider.get("abs"), HIT);
    advance(1);
    assert.deepEqual(await provider.get("abs"), MISS);
    assert.deepEqual(await provider.get("long"), HIT);
  });

  void it("a rewrite starts a new deadline", async () => {
    const { provider, advance } = setup({ slidingMs: 0, absoluteMs: 1000 });
    await provider.set("k", "v");
    advance(800);
    await provider.set("k", "v");
    advance(800);
    assert.deepEqual(await provider.get("k"), HIT);
  });

  void it("the least recently used entry leaves when the bound is reached", async () => {
    const { provider } = setup(undefined, 2);
    await provider.set("a", 1);
    await provider.set("b", 2);
    await provider.get("a");
    await provider.set("c", 3);
    assert.deepEqual(await provider.get("b"), MISS);
    assert.deepEqual(await provider.get("a"), { hit: true, value: 1 });
    assert.deepEqual(await provider.get("c"), { hit: true, value: 3 });
  });
});

void describe("warn limiter", () => {
  void it("one warning per kind per interval, with the count held back", () => {
    let now = 0;
    const lines: Record<string, unknown>[] = [];
    const warn = warnLimiter({ warn: (f) => lines.push(f) }, 10_000, () => now);
    warn("redis-get", {}, "m");
    warn("redis-set", {}, "m");
    for (let i = 0; i < 5; i++) warn("redis-get", {}, "m");
    now = 9_999;
    warn("redis-get", {}, "m");
    assert.equal(lines.length, 2);
    now = 10_000;
    warn("redis-get", {}, "m");
    assert.equal(lines.length, 3);
    assert.deepEqual(lines[2], { kind: "redis-get", suppressed: 6 });
  });
});
