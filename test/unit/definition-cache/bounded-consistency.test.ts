/**
 * The bounded mode's rules on a fake ledger, a fake signal and timers and a
 * clock the test moves: answers from memory without a query once started;
 * never a made-up or outdated state (before start, after close, after a
 * failed refresh, past 2 × pollMs); refreshes coalesced, each asker served by
 * a refresh that began after it asked; changed() refreshes before it resolves
 * and publishes after. The real databases and signals: test/definition-cache/.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  boundedConsistency,
  type SetTimer,
} from "../../../src/engine/definition-cache/bounded-consistency.ts";
import type {
  LedgerState,
  RevisionView,
} from "../../../src/engine/definition-cache/cache-ledger-port.ts";
import type { RevisionSignal } from "../../../src/engine/definition-cache/revision-signal-port.ts";

const POLL = 100;

/** A ledger whose answers the test sets, and whose reads it may hold until released. */
function fakeLedger() {
  const state: Record<RevisionView, LedgerState> = {
    data: { revision: 1, fenced: false },
    routes: { revision: 1, fenced: false },
  };
  const reads: RevisionView[] = [];
  let failure: Error | undefined;
  let held: (() => void)[] | undefined;
  return {
    state,
    reads,
    fail(e: Error | undefined) {
      failure = e;
    },
    /** Holds every read begun from now on until release(). */
    hold() {
      held = [];
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    async readState(view: RevisionView): Promise<LedgerState> {
      reads.push(view);
      // The answer is what the ledger held when the read began (its snapshot).
      const answer = { ...state[view] };
      const error = failure;
      if (held !== undefined) {
        const h = held;
        await new Promise<void>((go) => h.push(go));
      }
      if (error !== undefined) throw error;
      return answer;
    },
  };
}

function fakeSignal() {
  const log: string[] = [];
  let onMoved: (() => void) | undefined;
  const signal: RevisionSignal = {
    kind: "poll",
    start(cb) {
      onMoved = cb;
      log.push("start");
      return Promise.resolve();
    },
    publish() {
      log.push("publish");
      return Promise.resolve();
    },
    close() {
      log.push("close");
      onMoved = undefined;
      return Promise.resolve();
    },
  };
  return { signal, log, push: () => onMoved?.() };
}

function fakeTimers() {
  let now = 0;
  let timers: { at: number; fn: () => void; live: boolean }[] = [];
  const setTimer: SetTimer = (fn, ms) => {
    const t = { at: now + ms, fn, live: true };
    timers.push(t);
    return () => {
      t.live = false;
    };
  };
  return {
    setTimer,
    now: () => now,
    pending: () => timers.filter((t) => t.live).length,
    /** Moves the clock, firing the timers that came due (in order). */
    advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.live && t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (due === undefined) break;
        now = due.at;
        due.live = false;
        due.fn();
      }
      now = until;
      timers = timers.filter((t) => t.live);
    },
  };
}

const settle = () => new Promise<void>((r) => setImmediate(r));

function setup() {
  const ledger = fakeLedger();
  const signal = fakeSignal();
  const timers = fakeTimers();
  const warnings: string[] = [];
  const consistency = boundedConsistency({
    ledger,
    signal: signal.signal,
    pollMs: POLL,
    log: { warn: (_f, m) => warnings.push(m) },
    setTimer: timers.setTimer,
    now: timers.now,
  });
  return { ledger, signal, timers, warnings, consistency };
}

void describe("bounded consistency (fake ledger, signal and clock)", () => {
  void it("before start every state is read from the ledger, never made up", async () => {
    const { ledger, consistency } = setup();
    assert.deepEqual(await consistency.state("data"), { revision: 1, fenced: false });
    ledger.state.data = { revision: 7, fenced: true };
    assert.deepEqual(await consistency.state("data"), { revision: 7, fenced: true });
    assert.equal(ledger.reads.length, 4, "one refresh (both views) per state()");
  });

  void it("once started, states come from memory: no ledger read", async () => {
    const { ledger, consistency, signal } = setup();
    await consistency.start();
    assert.deepEqual(signal.log, ["start"]);
    const before = ledger.reads.length;
    for (let i = 0; i < 100; i++) {
      assert.deepEqual(await consistency.state(i % 2 ? "data" : "routes"), {
        revision: 1,
        fenced: false,
      });
    }
    assert.equal(ledger.reads.length, before);
    await consistency.close();
  });

  void it("the poll refreshes every pollMs after the last refresh began", async () => {
    const { ledger, timers, consistency } = setup();
    await consistency.start();
    ledger.state.data = { revision: 2, fenced: true };
    timers.advance(POLL - 1);
    await settle();
    assert.equal((await consistency.state("data")).revision, 1, "not yet polled");
    timers.advance(1);
    await settle();
    assert.deepEqual(await consistency.state("data"), { revision: 2, fenced: true });
    // A push-driven refresh moves the next poll out: still one timer, due pollMs after it.
    timers.advance(40);
    const reads = ledger.reads.length;
    await consistency.changed();
    assert.equal(ledger.reads.length, reads + 2);
    assert.equal(timers.pending(), 1);
    timers.advance(POLL - 1);
    await settle();
    assert.equal(ledger.reads.length, reads + 2, "no poll within pollMs of the last refresh");
    timers.advance(1);
    await settle();
    assert.equal(ledger.reads.length, reads + 4);
    await consistency.close();
    assert.equal(timers.pending(), 0, "close stops the poll");
  });

  void it("a push refreshes at once", async () => {
    const { ledger, signal, consistency } = setup();
    await consistency.start();
    ledger.state.routes = { revision: 5, fenced: false };
    signal.push();
    await settle();
    assert.equal((await consistency.state("routes")).revision, 5);
    await consistency.close();
  });

  void it("changed() refreshes before it resolves, then publishes", async () => {
    const { ledger, signal, consistency } = setup();
    await consistency.start();
    ledger.state.data = { revision: 1, fenced: true };
    ledger.hold();
    let resolved = false;
    const changing = consistency.changed().then(() => (resolved = true));
    await settle();
    assert.equal(resolved, false, "waits for its refresh");
    assert.deepEqual(signal.log, ["start"], "publishes only after refreshing");
    ledger.release();
    await changing;
    assert.deepEqual(signal.log, ["start", "publish"]);
    assert.deepEqual(await consistency.state("data"), { revision: 1, fenced: true });
    await consistency.close();
  });

  void it("a refresh asked for while one runs is one that begins after it (coalesced)", async () => {
    const { ledger, consistency } = setup();
    await consistency.start();
    ledger.hold();
    const first = consistency.changed(); // begins a refresh: the ledger says revision 1
    await settle();
    ledger.state.data = { revision: 3, fenced: false }; // committed while that read runs
    const askers = [consistency.changed(), consistency.changed(), consistency.changed()];
    await settle();
    assert.equal(ledger.reads.length, 4, "start's refresh and the running one; others wait");
    ledger.release();
    await first;
    await settle();
    ledger.release();
    await Promise.all(askers);
    assert.equal(ledger.reads.length, 6, "three askers shared one refresh");
    assert.equal((await consistency.state("data")).revision, 3, "it saw the later commit");
    await consistency.close();
  });

  void it("after a failed refresh every state reads the ledger, and rejects while it fails", async () => {
    const { ledger, timers, warnings, consistency } = setup();
    await consistency.start();
    ledger.fail(new Error("ledger down"));
    timers.advance(POLL);
    await settle();
    assert.equal(warnings.length, 1);
    await assert.rejects(consistency.state("data"), /ledger down/);
    await assert.rejects(consistency.state("routes"), /ledger down/);
    ledger.fail(undefined);
    ledger.state.data = { revision: 9, fenced: false };
    const reads = ledger.reads.length;
    assert.deepEqual(await consistency.state("data"), { revision: 9, fenced: false });
    assert.equal(ledger.reads.length, reads + 2, "it read the ledger itself");
    assert.equal(warnings.length, 2, "recovery is logged once");
    // Trusted again: memory.
    await consistency.state("data");
    assert.equal(ledger.reads.length, reads + 2);
    await consistency.close();
  });

  void it("changed() never rejects, but a failed refresh leaves reads on the ledger", async () => {
    const { ledger, signal, consistency } = setup();
    await consistency.start();
    ledger.fail(new Error("ledger down"));
    await consistency.changed();
    assert.deepEqual(signal.log, ["start", "publish"], "publishes anyway");
    await assert.rejects(consistency.state("data"), /ledger down/);
    await consistency.close();
  });

  void it("a copy older than 2 × pollMs is never answered (a poll that never came)", async () => {
    const { ledger, timers, consistency } = setup();
    await consistency.start();
    ledger.hold(); // the next refresh hangs
    timers.advance(POLL);
    await settle();
    ledger.state.data = { revision: 4, fenced: true };
    timers.advance(POLL); // 2 × pollMs since the copy was read: still answered
    assert.deepEqual(await consistency.state("data"), { revision: 1, fenced: false });
    timers.advance(1);
    let answered: LedgerState | undefined;
    const waiting = consistency.state("data").then((s) => (answered = s));
    await settle();
    assert.equal(answered, undefined, "waits for a fresh read instead");
    ledger.release(); // the hung one ends; the waiting one begins
    await settle();
    ledger.release();
    await waiting;
    assert.deepEqual(answered, { revision: 4, fenced: true });
    await consistency.close();
  });

  void it("after close every state reads the ledger again", async () => {
    const { ledger, signal, consistency } = setup();
    await consistency.start();
    await consistency.close();
    assert.deepEqual(signal.log, ["start", "close"]);
    const reads = ledger.reads.length;
    ledger.fail(new Error("closed"));
    await assert.rejects(consistency.state("data"), /closed/);
    assert.equal(ledger.reads.length, reads + 2);
  });

  void it("start after close starts nothing", async () => {
    const { signal, timers, consistency } = setup();
    await consistency.close();
    await consistency.start();
    assert.deepEqual(signal.log, ["close"]);
    assert.equal(timers.pending(), 0);
  });

  void it("start survives an unreachable ledger: reads reject until it answers", async () => {
    const { ledger, timers, consistency } = setup();
    ledger.fail(new Error("ledger down"));
    await consistency.start();
    await assert.rejects(consistency.state("data"), /ledger down/);
    ledger.fail(undefined);
    timers.advance(POLL);
    await settle();
    const reads = ledger.reads.length;
    assert.deepEqual(await consistency.state("data"), { revision: 1, fenced: false });
    assert.equal(ledger.reads.length, reads, "the poll restored the copy");
    await consistency.close();
  });
});
