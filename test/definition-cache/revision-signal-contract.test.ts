/**
 * The revision signal's contract (src/engine/definition-cache/revision-signal-port.ts),
 * one suite run unchanged on every implementation: PostgreSQL LISTEN/NOTIFY,
 * Redis pub/sub and the poll-only signal (whose push cases are skipped, with
 * the reason: it has no push by design). Two "nodes" are two signals on one
 * channel in this process, each with its own listening connection.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RevisionSignal } from "../../src/engine/definition-cache/revision-signal-port.ts";
import {
  openSignalBackend,
  signalNames,
  signalTestOptions,
  type SignalBackend,
  type SignalName,
} from "./support/revision-signals.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves when `cond` holds; rejects naming `what` after `ms`. */
async function waitFor(what: string, cond: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!cond()) {
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(5);
  }
  return Date.now() - started;
}

/** A started signal and how often it reported onMoved. */
async function listening(signal: RevisionSignal): Promise<{ moved: () => number }> {
  let moved = 0;
  await signal.start(() => moved++);
  return { moved: () => moved };
}

async function withBackend(name: SignalName, fn: (b: SignalBackend) => Promise<void>) {
  const backend = await openSignalBackend(name);
  try {
    await fn(backend);
  } finally {
    await backend.close();
  }
}

const NO_PUSH = "the poll-only signal has no push by design: other nodes learn at their poll";

for (const name of signalNames) {
  void describe(`revision signal: ${name}`, async () => {
    const opts = await signalTestOptions(name);
    const push = name === "poll" ? { skip: NO_PUSH } : opts;

    void it("reports onMoved once it listens (the catch-up after every connection)", push, () =>
      withBackend(name, async (b) => {
        const node = await listening(b.open());
        await waitFor("onMoved after start", () => node.moved() >= 1, 2000);
      }),
    );

    void it("a publish on node A reaches node B within 2 s", push, () =>
      withBackend(name, async (b) => {
        const a = b.open();
        const nodeB = await listening(b.open());
        await waitFor("B's first report", () => nodeB.moved() >= 1, 2000);
        for (let i = 0; i < 3; i++) {
          const before = nodeB.moved();
          await a.publish();
          const ms = await waitFor(`publish ${i} at B`, () => nodeB.moved() > before, 2000);
          assert.ok(ms < 2000);
        }
        assert.deepEqual(b.warnings, []);
      }),
    );

    void it("a node does not wake itself with its own publish", push, () =>
      withBackend(name, async (b) => {
        const signal = b.open();
        const self = await listening(signal);
        const other = await listening(b.open());
        await waitFor("first reports", () => self.moved() >= 1 && other.moved() >= 1, 2000);
        const mine = self.moved();
        const others = other.moved();
        await signal.publish();
        await waitFor("the other node", () => other.moved() > others, 2000);
        await sleep(200);
        assert.equal(self.moved(), mine);
      }),
    );

    void it("close stops delivery", push, () =>
      withBackend(name, async (b) => {
        const a = b.open();
        const signalB = b.open();
        const nodeB = await listening(signalB);
        await waitFor("B's first report", () => nodeB.moved() >= 1, 2000);
        await signalB.close();
        const after = nodeB.moved();
        await a.publish();
        await a.publish();
        await sleep(500);
        assert.equal(nodeB.moved(), after, "nothing after close");
        await signalB.close(); // twice is fine
      }),
    );

    const cut = name === "poll" ? { skip: NO_PUSH } : opts;
    void it(
      "after its connection is cut, a listener listens again and hears later publishes",
      cut,
      () =>
        withBackend(name, async (b) => {
          const a = b.open();
          const nodeB = await listening(b.open());
          await waitFor("B's first report", () => nodeB.moved() >= 1, 2000);
          const before = nodeB.moved();
          await b.cut!();
          // The reconnection reports onMoved (what was published meanwhile is not lost to it).
          await waitFor("B listening again", () => nodeB.moved() > before, 5000);
          const again = nodeB.moved();
          await a.publish();
          await waitFor("a publish after the cut", () => nodeB.moved() > again, 2000);
        }),
    );

    void it("its server down: publish resolves; back up: the listener hears again", cut, () =>
      withBackend(name, async (b) => {
        const a = b.open();
        const { signal, proxy } = await b.openBehindProxy!();
        const nodeB = await listening(signal);
        await waitFor("B's first report", () => nodeB.moved() >= 1, 2000);
        proxy.refuse(true); // every connection dropped, new ones refused: a stopped server
        const downAt = Date.now();
        await signal.publish();
        assert.ok(Date.now() - downAt < 5000, "a publish to a stopped server fails fast");
        assert.ok(b.warnings.length > 0, "and is logged");
        const before = nodeB.moved();
        proxy.refuse(false);
        await waitFor("B listening again", () => nodeB.moved() > before, 15_000);
        const again = nodeB.moved();
        await a.publish();
        await waitFor("a publish after the outage", () => nodeB.moved() > again, 2000);
        await signal.publish(); // and B publishes again too
      }),
    );

    void it("a server unreachable at start and publish rejects neither", opts, () =>
      withBackend(name, async (b) => {
        const signal = b.openUnreachable();
        let moved = 0;
        const startedAt = Date.now();
        await signal.start(() => moved++);
        await signal.publish();
        await signal.publish();
        assert.ok(Date.now() - startedAt < 10_000, "neither waits long for a refused port");
        assert.equal(moved, 0, "nothing was heard");
        if (b.pushes) assert.ok(b.warnings.length > 0, "the outage is logged");
        await signal.close();
      }),
    );

    void it("close before start, and publish without start, are fine", opts, () =>
      withBackend(name, async (b) => {
        const idle = b.open();
        await idle.close();
        const sender = b.open();
        await sender.publish();
        await sender.close();
        assert.deepEqual(b.warnings, []);
      }),
    );
  });
}
