/**
 * The history cursor on its own (no store, no workflow): positions, the
 * non-determinism check, and completion events that never take a position.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunEvent } from "../../../src/domain/run-event.ts";
import {
  CancelledFailure,
  NonDeterminismError,
  type WorkflowFailure,
} from "../../../src/domain/workflow-failure.ts";
import { Halts, LeaseLost } from "../../../src/engine/durable/halts.ts";
import { HistoryCursor } from "../../../src/engine/durable/replay/history-cursor.ts";

const AT = 1_700_000_000_000;
const failure: WorkflowFailure = {
  name: "Error",
  message: "boom",
  stack: null,
  nonRetryable: false,
};

const step = (seq: number, name: string): RunEvent => ({
  seq,
  type: "step",
  name,
  at: AT,
  data: { result: seq },
});
const retry = (seq: number, name: string): RunEvent => ({
  seq,
  type: "step_retry",
  name,
  at: AT,
  data: { attempt: 1, retryAt: AT + 10_000, failure },
});
const timerFired = (seq: number, ref: number): RunEvent => ({
  seq,
  type: "timer",
  name: "sleep",
  at: AT,
  data: { ref },
});

function cursor(events: RunEvent[], firstSeq = 0, compensating = false) {
  const halts = new Halts(() => undefined);
  return { halts, cursor: new HistoryCursor(firstSeq, events, halts, { compensating }) };
}

describe("history cursor: positions", () => {
  it("hands out positions in call order from the generation's first seq", () => {
    const { cursor: c } = cursor([], 7);
    assert.deepEqual([c.next(), c.next(), c.next()], [7, 8, 9]);
    assert.equal(c.endSeq, 10);
  });

  it("skips completion events, so a wait that ended shifts no later call", () => {
    // 0: step a, retried durably; 1 (its next retry) and 2 (a timer that fired in a
    // race) are completions of 0; step b, the next call, is at 3.
    const { cursor: c } = cursor([
      retry(0, "a"),
      {
        seq: 1,
        type: "step_retry",
        name: "a",
        at: AT,
        data: { attempt: 2, retryAt: AT, failure, ref: 0 },
      },
      timerFired(2, 0),
      step(3, "b"),
    ]);
    assert.equal(c.next(), 0);
    assert.equal(c.peek(), 3);
    assert.equal(c.next(), 3);
    assert.equal(c.match(3, ["step"], "b")?.data.result, 3);
  });

  it("puts completion events written now past everything recorded", () => {
    const { cursor: c } = cursor([step(0, "a"), timerFired(5, 0)]);
    assert.equal(c.next(), 0);
    assert.equal(c.completionSeq(), 6);
    assert.equal(c.completionSeq(), 7);
    // The next call takes the first free position; 5 is a completion and is skipped.
    assert.equal(c.next(), 1);
    assert.equal(c.endSeq, 8);
  });

  it("gives the latest completion of a call", () => {
    const { cursor: c } = cursor([retry(0, "a"), timerFired(1, 0), timerFired(2, 0)]);
    assert.equal(c.lastCompletion(0)?.seq, 2);
    assert.equal(c.lastCompletion(1), undefined);
  });

  it("throws the run's halt instead of handing out a position once halted", () => {
    const { cursor: c, halts } = cursor([]);
    const lost = halts.raise(new LeaseLost());
    assert.throws(
      () => c.next(),
      (e) => e === lost,
    );
  });
});

describe("history cursor: the non-determinism check", () => {
  it("returns the recorded event when type and name match, nothing past the end", () => {
    const { cursor: c } = cursor([step(0, "a")]);
    assert.equal(c.match(0, ["step", "step_retry"], "a")?.seq, 0);
    assert.equal(c.match(1, ["step"], "b"), undefined);
  });

  it("halts with a NonDeterminismError when the code calls something else", () => {
    const { cursor: c, halts } = cursor([step(0, "a")]);
    assert.throws(
      () => c.match(0, ["timer"], "sleep"),
      (e) =>
        e instanceof NonDeterminismError &&
        e.seq === 0 &&
        /history has step 'a' but the code now calls timer 'sleep'/.test(e.message),
    );
    assert.ok(halts.current instanceof NonDeterminismError);
    // Every later call throws the same halt.
    assert.throws(
      () => c.next(),
      (e) => e === halts.current,
    );
  });

  it("halts when the name differs", () => {
    const { cursor: c } = cursor([step(0, "a")]);
    assert.throws(() => c.match(0, ["step"], "b"), NonDeterminismError);
  });

  it("ends the call when a cancellation is recorded there, except while compensating", () => {
    const cancelled: RunEvent = { seq: 0, type: "cancelled", name: null, at: AT, data: null };
    assert.throws(() => cursor([cancelled]).cursor.match(0, ["step"], "a"), CancelledFailure);
    const compensating = cursor([cancelled], 0, true).cursor;
    assert.throws(() => compensating.match(0, ["step"], "a"), NonDeterminismError);
  });

  it("knows which non-determinism history already records", () => {
    const blocked: RunEvent = {
      seq: 4,
      type: "nondeterminism",
      name: null,
      at: AT,
      data: { ref: -1, failure },
    };
    const { cursor: c } = cursor([step(0, "a"), blocked]);
    assert.equal(c.hasBlock("boom"), true);
    assert.equal(c.hasBlock("other"), false);
    assert.equal(c.next(), 0);
    assert.equal(c.next(), 1);
  });
});
