/**
 * The history writer on its own, over a fake store: the order in which events
 * reach the store, deferred step records, fencing and marker writes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunEvent } from "../../../src/domain/run-event.ts";
import type { ExecutionStore } from "../../../src/engine/durable/halting-store.ts";
import { Halts, LeaseLost } from "../../../src/engine/durable/halts.ts";
import { HistoryWriter } from "../../../src/engine/durable/history-writer.ts";
import { HistoryCursor } from "../../../src/engine/durable/replay/history-cursor.ts";
import type { Lease, RunStore } from "../../../src/engine/durable/run-store-port.ts";

const lease: Lease = { tenantId: "t1", runId: "r1", owner: "w1" };
const step = (seq: number): RunEvent => ({
  seq,
  type: "step",
  name: `s${seq}`,
  at: 0,
  data: { result: seq },
});

function setup(accept: (e: RunEvent) => boolean | Promise<boolean> = () => true) {
  const written: number[] = [];
  let woken = 0;
  let settled = 0;
  const store = {
    appendEvent: async (_: Lease, e: RunEvent) => {
      const ok = await accept(e);
      if (ok) written.push(e.seq);
      return ok;
    },
  } as unknown as ExecutionStore;
  const halts = new Halts(() => woken++);
  const cursor = new HistoryCursor(0, [], halts, { compensating: false });
  const raw = store as unknown as RunStore;
  const writer = new HistoryWriter(store, raw, lease, cursor, halts, () => settled++);
  return {
    writer,
    cursor,
    halts,
    written,
    woken: () => woken,
    settled: () => settled,
  };
}

describe("history writer", () => {
  it("shows a deferred step record to replay at once and writes it before the next append", async () => {
    const { writer, cursor, written } = setup();
    writer.defer(step(0));
    writer.defer(step(1));
    assert.equal(cursor.match(1, ["step"], "s1")?.seq, 1);
    assert.deepEqual(written, []);
    await writer.append(step(2));
    assert.deepEqual(written, [0, 1, 2]);
    assert.equal(writer.flushIfPending(), undefined);
  });

  it("hands the deferred records to the run's outcome instead of writing them", async () => {
    const { writer, written } = setup();
    writer.defer(step(0));
    assert.deepEqual(
      writer.takeDeferred().map((e) => e.seq),
      [0],
    );
    await writer.flush();
    assert.deepEqual(written, []);
  });

  it("writes each deferred record once when flushes overlap", async () => {
    const { writer, written } = setup();
    writer.defer(step(0));
    const first = writer.flush();
    writer.defer(step(1));
    await Promise.all([first, writer.flush(), writer.flushIfPending()]);
    assert.deepEqual(written, [0, 1]);
  });

  it("halts with LeaseLost when an append is fenced, and the event is not remembered", async () => {
    const { writer, cursor, halts } = setup(() => false);
    await assert.rejects(writer.append(step(0)), LeaseLost);
    assert.ok(halts.current instanceof LeaseLost);
    assert.equal(cursor.at(0), undefined);
  });

  it("does not wait for a marker write; a fenced one halts quietly and wakes sleepers", async () => {
    let release!: (ok: boolean) => void;
    const { writer, cursor, halts, woken, settled } = setup(
      () => new Promise<boolean>((r) => (release = r)),
    );
    writer.mark({ seq: 0, type: "uuid", name: null, at: 0, data: { value: "u" } });
    assert.equal(cursor.match(0, ["uuid"], null)?.data.value, "u");
    assert.equal(writer.pendingMarkers, 1);
    await Promise.resolve();
    release(false);
    await new Promise((r) => setImmediate(r));
    assert.equal(writer.pendingMarkers, 0);
    assert.ok(halts.current instanceof LeaseLost);
    assert.equal(woken(), 1);
    assert.equal(settled(), 1);
  });
});
