/**
 * The batching rule of src/adapters/store/run-store/write-batcher.ts, with a
 * writer whose writes complete only when the test says so. (That the shared
 * statement judges each append by its own lease and seq is the run-store
 * contract's "concurrent appends of many runs", on the real databases.)
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  WriteBatcher,
  type BatchWriter,
} from "../../../src/adapters/store/run-store/write-batcher.ts";

const DUP = new Error("taken seq");

class Gate {
  readonly calls: { kind: "one" | "many"; items: number[]; open: (e?: Error) => void }[] = [];

  writer(fenced: (n: number) => boolean = () => false): BatchWriter<number> {
    return {
      one: (item) =>
        new Promise<boolean>((resolve, reject) =>
          this.calls.push({
            kind: "one",
            items: [item],
            open: (e) => (e ? reject(e) : resolve(!fenced(item))),
          }),
        ),
      many: (items) =>
        new Promise<boolean[]>((resolve, reject) =>
          this.calls.push({
            kind: "many",
            items: [...items],
            open: (e) => (e ? reject(e) : resolve(items.map((i) => !fenced(i)))),
          }),
        ),
      isRetryable: (e) => e === DUP,
    };
  }
}

const tick = () => new Promise((r) => setImmediate(r));

void describe("WriteBatcher", () => {
  void it("sends a lone append at once", async () => {
    const g = new Gate();
    const b = new WriteBatcher(g.writer(), 2);
    const p = b.append(1);
    assert.deepEqual(
      g.calls.map((c) => [c.kind, c.items]),
      [["one", [1]]],
    );
    g.calls[0]!.open();
    assert.equal(await p, true);
  });

  void it("holds appends while maxInFlight writes are out, then sends them as one", async () => {
    const g = new Gate();
    const b = new WriteBatcher(
      g.writer((n) => n === 4),
      2,
    );
    const ps = [1, 2, 3, 4, 5].map((n) => b.append(n));
    assert.deepEqual(
      g.calls.map((c) => [c.kind, c.items]),
      [
        ["one", [1]],
        ["one", [2]],
      ],
    );
    g.calls[0]!.open();
    await tick();
    assert.equal(g.calls[2]?.kind, "many");
    assert.deepEqual(g.calls[2]?.items, [3, 4, 5]);
    g.calls[1]!.open();
    g.calls[2].open();
    assert.deepEqual(await Promise.all(ps), [true, true, true, false, true]);
  });

  void it("retries a batch that failed as a whole one by one; other errors reject all", async () => {
    const g = new Gate();
    const b = new WriteBatcher(g.writer(), 1);
    const first = b.append(0);
    const ps = [1, 2].map((n) => b.append(n));
    g.calls[0]!.open();
    await first;
    await tick();
    g.calls[1]!.open(DUP);
    await tick();
    assert.deepEqual(
      g.calls.slice(2).map((c) => [c.kind, c.items]),
      [
        ["one", [1]],
        ["one", [2]],
      ],
    );
    g.calls[2]!.open();
    g.calls[3]!.open();
    assert.deepEqual(await Promise.all(ps), [true, true]);
    await tick();

    const more = [3, 4, 5].map((n) => b.append(n));
    await tick();
    // 3 went alone (nothing in flight); 4 and 5 wait for it and share a statement.
    g.calls[4]!.open();
    await tick();
    g.calls[5]!.open(new Error("connection lost"));
    const settled = await Promise.allSettled(more);
    assert.deepEqual(
      settled.map((s) => s.status),
      ["fulfilled", "rejected", "rejected"],
    );
  });
});
