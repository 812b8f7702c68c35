/**
 * The run's scheduler on its own (no store, no workflow): completion turns in
 * history order, the live lane, and suspension once every call is parked.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Halts, Suspend } from "../../../src/engine/durable/halts.ts";
import { Scheduler, type PendingWrites } from "../../../src/engine/durable/scheduler.ts";

function scheduler(writes: PendingWrites = { pendingMarkers: 0, flushIfPending: () => undefined }) {
  const halts = new Halts(() => undefined);
  return { halts, s: new Scheduler(halts, writes) };
}

/** The run's halt, read fresh (an earlier assertion must not narrow it). */
const standing = (halts: Halts): unknown => halts.current;

const tick = () => new Promise<void>((r) => setImmediate(r));

/** A ctx call that parks after its first await, as every real wait does (its live check). */
const parkLater = (s: Scheduler, wakeAt: number | null, signals: string[]) =>
  s.track(async () => {
    await Promise.resolve();
    return s.park(wakeAt, signals);
  });

describe("scheduler: turns", () => {
  it("delivers recorded completions lowest seq first, whatever order they were asked in", async () => {
    const { s } = scheduler();
    const order: number[] = [];
    await Promise.all([9, 3, 5].map((seq) => s.turn(seq).then(() => order.push(seq))));
    assert.deepEqual(order, [3, 5, 9]);
  });

  it("delivers one completion per macrotask, so reactions to one run before the next", async () => {
    const { s } = scheduler();
    const seen: string[] = [];
    const first = s.turn(1).then(() => {
      seen.push("1");
      void Promise.resolve().then(() => seen.push("reaction to 1"));
    });
    const second = s.turn(2).then(() => seen.push("2"));
    await Promise.all([first, second]);
    assert.deepEqual(seen, ["1", "reaction to 1", "2"]);
  });
});

describe("scheduler: the live lane", () => {
  it("runs live checks one at a time, in call order, after the deferred writes", async () => {
    let flushed = 0;
    const { s } = scheduler({
      pendingMarkers: 0,
      flushIfPending: () => {
        flushed++;
        return undefined;
      },
    });
    const log: string[] = [];
    let running = 0;
    const check = (name: string) => async () => {
      running++;
      assert.equal(running, 1, "two live checks overlapped");
      await tick();
      log.push(name);
      running--;
      return name;
    };
    const results = await Promise.all([s.live(check("a")), s.live(check("b"))]);
    assert.deepEqual(results, ["a", "b"]);
    assert.deepEqual(log, ["a", "b"]);
    assert.equal(flushed, 2);
  });

  it("waits for recorded completions to be delivered before a live check", async () => {
    const { s } = scheduler();
    const log: string[] = [];
    const live = s.live(() => Promise.resolve(void log.push("live")));
    const replayed = s.turn(4).then(() => void log.push("replayed 4"));
    await Promise.all([live, replayed]);
    assert.deepEqual(log, ["replayed 4", "live"]);
  });

  it("throws the run's halt instead of running the check", async () => {
    const { s, halts } = scheduler();
    const h = halts.raise(new Suspend(null));
    await assert.rejects(
      s.live(() => Promise.resolve("ran")),
      (e) => e === h,
    );
  });
});

describe("scheduler: suspension", () => {
  it("suspends once every call is parked: earliest wake-up, every signal", async () => {
    const { s, halts } = scheduler();
    const a = parkLater(s, 5_000, ["go"]);
    const b = parkLater(s, 2_000, ["__task:x"]);
    const c = parkLater(s, null, ["go"]);
    const halt = await s.suspended.catch((e: unknown) => e);
    assert.ok(halt instanceof Suspend);
    assert.equal(halt.wakeAt, 2_000);
    assert.deepEqual([...halt.signalNames].sort(), ["__task:x", "go"]);
    assert.equal(halts.current, halt);
    for (const p of [a, b, c]) await assert.rejects(p, (e) => e === halt);
  });

  it("does not suspend while another call is still running", async () => {
    const { s, halts } = scheduler();
    let finish!: () => void;
    void parkLater(s, 1_000, []);
    const running = s.track(() => new Promise<void>((r) => (finish = r)));
    await tick();
    await tick();
    assert.equal(halts.current, undefined);
    finish();
    await running;
    await s.suspended.catch(() => undefined);
    assert.ok(standing(halts) instanceof Suspend);
  });

  it("does not suspend while a marker write is in flight", async () => {
    const writes = { pendingMarkers: 1, flushIfPending: () => undefined };
    const { s, halts } = scheduler(writes);
    void parkLater(s, 1_000, []);
    await tick();
    await tick();
    assert.equal(halts.current, undefined);
    writes.pendingMarkers = 0;
    s.changed();
    await tick();
    assert.ok(standing(halts) instanceof Suspend);
  });

  it("does not suspend after the workflow function settled", async () => {
    const { s, halts } = scheduler();
    s.quiesce = false;
    void parkLater(s, 1_000, []);
    await tick();
    await tick();
    assert.equal(halts.current, undefined);
    // settle() abandons parked calls the workflow no longer awaits.
    await s.settle();
  });

  it("turns a synchronous throw of a call into a rejection", async () => {
    const { s } = scheduler();
    await assert.rejects(
      s.track(() => {
        throw new Error("sync");
      }),
      /sync/,
    );
    assert.equal(s.inFlight, 0);
  });
});
