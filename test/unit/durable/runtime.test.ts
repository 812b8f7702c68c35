import { test } from "node:test";
import assert from "node:assert/strict";
import { workflow, NonRetryableError } from "../../../src/workflow.ts";
import { toMs } from "../../../src/domain/duration.ts";
import { MemoryRunStore } from "../../support/memory-run-store.ts";
import { Harness } from "../../support/harness.ts";

const T = "t1";

test("duration strings parse to milliseconds", () => {
  assert.equal(toMs("500ms"), 500);
  assert.equal(toMs("30s"), 30_000);
  assert.equal(toMs("2h"), 7_200_000);
  assert.equal(toMs("7d"), 604_800_000);
  assert.equal(toMs("1h30m"), 5_400_000);
  assert.equal(toMs(250), 250);
  assert.throws(() => toMs("2 parsecs"), /invalid duration/);
  assert.throws(() => toMs(-1), /invalid duration/);
});

test("steps run once, record results and get a stable idempotency key", async () => {
  const keys: string[] = [];
  const wf = workflow("three", async (ctx, input: { n: number }) => {
    const a = await ctx.step("a", ({ idempotencyKey }) => {
      keys.push(idempotencyKey);
      return input.n + 1;
    });
    const b = await ctx.step("b", () => a * 2);
    const c = await ctx.step("c", () => ({ at: new Date(0) }));
    return { a, b, c };
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("three", { n: 1 }, "r1");
  assert.deepEqual(await h.drain(), ["completed"]);
  const run = await h.store.getRun(T, "r1");
  assert.equal(run!.status, "completed");
  // The live result is the JSON form too, so live and replay agree (Date → string).
  assert.deepEqual(run!.output, { a: 2, b: 4, c: { at: "1970-01-01T00:00:00.000Z" } });
  assert.deepEqual(keys, ["r1:0"]);
  const hist = await h.store.loadHistory(T, "r1", 0);
  assert.deepEqual(
    hist.map((e) => [e.seq, e.type, e.name]),
    [
      [0, "step", "a"],
      [1, "step", "b"],
      [2, "step", "c"],
    ],
  );
});

/** A store that fences every append after `n` of them, like a worker whose lease was taken over. */
class CrashingStore extends MemoryRunStore {
  budget = Infinity;
  override appendEvent(...args: Parameters<MemoryRunStore["appendEvent"]>) {
    if (this.budget-- <= 0) return Promise.resolve(false);
    return super.appendEvent(...args);
  }
}

test("after a crash, recorded steps are replayed, never run again", async () => {
  const runs = new Map<string, number>();
  const wf = workflow("five", async (ctx) => {
    let sum = 0;
    for (let i = 0; i < 5; i++) {
      sum += await ctx.step(`s${i}`, ({ idempotencyKey }) => {
        runs.set(idempotencyKey, (runs.get(idempotencyKey) ?? 0) + 1);
        return i;
      });
    }
    return sum;
  });
  const store = new CrashingStore();
  const h = new Harness(store, [wf]);
  await h.start("five", null, "r1");
  store.budget = 2;
  assert.deepEqual(await h.drain(1), ["lost"]);
  // The third step ran but its record was refused; the run is still held by w1 until its lease ends.
  h.clock.advance(6_000);
  store.budget = Infinity;
  h.owner = "w2";
  assert.deepEqual(await h.drain(), ["completed"]);
  assert.equal((await store.getRun(T, "r1"))!.output, 10);
  assert.deepEqual([...runs.values()], [1, 1, 2, 1, 1]);
});

test("retries with backoff until success; the key is stable across attempts", async () => {
  const seen: [string, number][] = [];
  const wf = workflow("flaky", async (ctx) =>
    ctx.step(
      "call",
      ({ idempotencyKey, attempt }) => {
        seen.push([idempotencyKey, attempt]);
        if (attempt < 3) throw new Error("boom " + attempt);
        return "ok";
      },
      { retry: { maxAttempts: 5, initialInterval: 1 } },
    ),
  );
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("flaky", null, "r1");
  await h.drain();
  assert.equal((await h.store.getRun(T, "r1"))!.output, "ok");
  assert.deepEqual(seen, [
    ["r1:0", 1],
    ["r1:0", 2],
    ["r1:0", 3],
  ]);
});

test("attempts retried in memory are listed in the step's outcome: attempt, time and failure", async () => {
  const wf = workflow("listed", async (ctx) => {
    await ctx.step("first-try", () => "fine");
    return ctx.step(
      "flaky",
      ({ attempt }) => {
        if (attempt < 3) throw new Error(`boom ${attempt}`);
        return "ok";
      },
      { retry: { maxAttempts: 5, initialInterval: 1 } },
    );
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("listed", null, "r1");
  await h.drain();
  const [first, flaky] = await h.store.loadHistory(T, "r1", 0);
  assert.deepEqual(first?.data, { result: "fine" }, "a first-try step records what it did before");
  const data = flaky?.data as {
    result: string;
    attempt: number;
    retried: { attempt: number; at: number; failure: { message: string } }[];
  };
  assert.equal(data.result, "ok");
  assert.equal(data.attempt, 3);
  assert.deepEqual(
    data.retried.map((r) => [r.attempt, r.failure.message, typeof r.at]),
    [
      [1, "boom 1", "number"],
      [2, "boom 2", "number"],
    ],
  );
});

test("a final failure lists the attempts before it; a long policy lists only the latest ten", async () => {
  const wf = workflow("many", async (ctx) =>
    ctx.step(
      "never",
      ({ attempt }) => {
        throw new Error(`no ${attempt}`);
      },
      { retry: { maxAttempts: 14, initialInterval: 1, maxInterval: 1 } },
    ),
  );
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("many", null, "r1");
  await h.drain();
  const [step] = await h.store.loadHistory(T, "r1", 0);
  const data = step?.data as {
    failure: { message: string };
    attempt: number;
    retried: { attempt: number }[];
  };
  assert.equal(data.failure.message, "no 14");
  assert.equal(data.attempt, 14);
  assert.deepEqual(
    data.retried.map((r) => r.attempt),
    [4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
  );
});

test("a durable retry lists the in-memory attempts before it; the outcome lists only those after", async () => {
  const wf = workflow("mixed", async (ctx) =>
    ctx.step(
      "x",
      ({ attempt }) => {
        if (attempt < 3) throw new Error(`boom ${attempt}`);
        return attempt;
      },
      // The harness sleeps backoffs under 50 ms in memory: ~10–20 ms, then ~100–200 ms (durable).
      { retry: { maxAttempts: 3, initialInterval: 20, backoff: 10, maxInterval: 1000 } },
    ),
  );
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("mixed", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting"]);
  h.clock.advance(1000);
  assert.deepEqual(await h.drain(), ["completed"]);
  const [retry, outcome] = await h.store.loadHistory(T, "r1", 0);
  assert.equal(retry?.type, "step_retry");
  const scheduled = retry?.data as { attempt: number; retried: { attempt: number }[] };
  assert.equal(scheduled.attempt, 2);
  assert.deepEqual(
    scheduled.retried.map((r) => r.attempt),
    [1],
  );
  assert.deepEqual(outcome?.data, { result: 3, attempt: 3, ref: 0 });
});

test("a non-retryable error fails the step at once and the run with a WorkflowFailure", async () => {
  let attempts = 0;
  class Declined extends Error {
    override name = "Declined";
  }
  const wf = workflow("nr", async (ctx) => {
    await ctx.step("a", () => {
      attempts++;
      throw new NonRetryableError("card declined");
    });
  });
  const wf2 = workflow("nr2", async (ctx) => {
    await ctx.step(
      "b",
      () => {
        attempts++;
        throw new Declined("no");
      },
      { nonRetryable: [Declined], retry: { maxAttempts: 9 } },
    );
  });
  const h = new Harness(new MemoryRunStore(), [wf, wf2]);
  await h.start("nr", null, "r1");
  await h.start("nr2", null, "r2");
  await h.drain();
  const r = await h.store.getRun(T, "r1");
  assert.equal(r!.status, "failed");
  assert.equal(r!.error!.name, "NonRetryableError");
  assert.equal(r!.error!.message, "card declined");
  assert.equal(r!.error!.nonRetryable, true);
  assert.equal((await h.store.getRun(T, "r2"))!.error!.name, "Declined");
  assert.equal(attempts, 2);
});

test("a step attempt past its timeout is retried, then fails", async () => {
  const wf = workflow("slow", async (ctx) =>
    ctx.step("slow", ({ signal }) => new Promise((r) => signal.addEventListener("abort", r)), {
      timeout: 10,
      retry: { maxAttempts: 2, initialInterval: 1 },
    }),
  );
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("slow", null, "r1");
  await h.drain();
  const r = await h.store.getRun(T, "r1");
  assert.equal(r!.status, "failed");
  assert.equal(r!.error!.name, "StepTimeoutError");
});

test("long retry backoffs are durable: the run waits and resumes at the retry time", async () => {
  let attempts = 0;
  const wf = workflow("durable-retry", async (ctx) =>
    ctx.step(
      "x",
      ({ attempt }) => {
        attempts++;
        if (attempt === 1) throw new Error("later");
        return attempt;
      },
      { retry: { initialInterval: "1h", maxInterval: "1h", maxAttempts: 3 } },
    ),
  );
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("durable-retry", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting"]);
  const w = await h.store.getRun(T, "r1");
  assert.equal(w!.status, "waiting");
  assert.ok(w!.wakeAt! > h.clock.now() + 1_000_000);
  h.clock.advance(3_600_000);
  assert.deepEqual(await h.drain(), ["completed"]);
  assert.equal((await h.store.getRun(T, "r1"))!.output, 2);
  assert.equal(attempts, 2);
  const hist = await h.store.loadHistory(T, "r1", 0);
  assert.deepEqual(
    hist.map((e) => e.type),
    ["step_retry", "step"],
  );
  assert.equal((hist[1]?.data as { attempt?: number }).attempt, 2, "the outcome names its attempt");
});

test("sleep is a durable timer: waiting with wake_at, resumed when due", async () => {
  const wf = workflow("sleeper", async (ctx) => {
    const before = ctx.now();
    await ctx.sleep("2h");
    await ctx.sleepUntil(before + 3 * 3_600_000);
    return ctx.now() - before;
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("sleeper", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting"]);
  const start = h.clock.now();
  assert.equal((await h.store.getRun(T, "r1"))!.wakeAt, start + 7_200_000);
  h.clock.advance(3_600_000);
  assert.deepEqual(await h.drain(), []);
  h.clock.advance(3_600_000);
  assert.deepEqual(await h.drain(), ["waiting"]);
  h.clock.advance(3_600_000);
  assert.deepEqual(await h.drain(), ["completed"]);
  assert.equal((await h.store.getRun(T, "r1"))!.output, 3 * 3_600_000);
});

test("short sleeps are awaited in memory", async () => {
  const wf = workflow("nap", async (ctx) => {
    await ctx.sleep(5);
    return "done";
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  h.clock.now = Date.now;
  await h.start("nap", null, "r1");
  const { executeRun } = await import("../../../src/engine/durable/executor.ts");
  const [run] = await h.store.claimRuns("w", Date.now(), Date.now() + 5000, 1);
  assert.equal(
    await executeRun(run!, { store: h.store, registry: h.registry, owner: "w" }),
    "completed",
  );
});

test("a signal sent before the wait is not lost; one sent after wakes the run; timeout gives null", async () => {
  const wf = workflow("signals", async (ctx) => {
    const a = await ctx.waitForSignal<{ v: number }>("go");
    const b = await ctx.waitForSignal<string>("later");
    const c = await ctx.waitForSignal("never", { timeout: "1m" });
    return { a, b, c };
  });
  const store = new MemoryRunStore();
  const h = new Harness(store, [wf]);
  await h.start("signals", null, "r1");
  await store.sendSignal(T, "r1", { id: "s1", name: "go", payload: { v: 1 } }, h.clock.now());
  assert.deepEqual(await h.drain(), ["waiting"]);
  assert.equal((await store.getRun(T, "r1"))!.wakeAt, null);
  await store.sendSignal(T, "r1", { id: "s2", name: "later", payload: "x" }, h.clock.now());
  assert.equal((await store.getRun(T, "r1"))!.wakeAt, h.clock.now());
  assert.deepEqual(await h.drain(), ["waiting"]);
  h.clock.advance(61_000);
  assert.deepEqual(await h.drain(), ["completed"]);
  assert.deepEqual((await store.getRun(T, "r1"))!.output, { a: { v: 1 }, b: "x", c: null });
  const hist = await store.loadHistory(T, "r1", 0);
  assert.deepEqual(
    hist.map((e) => `${e.type}:${e.name}`),
    ["signal:go", "signal_wait:later", "signal:later", "signal_wait:never", "signal_timeout:never"],
  );
});

test("a signal that arrives while the run is suspending wakes it at once", async () => {
  const wf = workflow("race", async (ctx) => ctx.waitForSignal("go"));
  const store = new (class extends MemoryRunStore {
    peeks = 0;
    override peekSignal(...a: Parameters<MemoryRunStore["peekSignal"]>) {
      const r = super.peekSignal(...a);
      // The signal lands right after the run's last look and before it parks.
      if (++this.peeks === 2) void this.sendSignal(T, "r1", { id: "s", name: "go", payload: 7 }, 0);
      return r;
    }
  })();
  const h = new Harness(store, [wf]);
  await h.start("race", null, "r1");
  assert.deepEqual(await h.drain(), ["waiting", "completed"]);
  assert.equal((await store.getRun(T, "r1"))!.output, 7);
});

test("now, random and uuid are recorded and replay to the same values", async () => {
  const seen: unknown[] = [];
  const wf = workflow("rec", async (ctx) => {
    const v = [ctx.now(), ctx.random(), ctx.uuid()];
    seen.push(v);
    await ctx.sleep("1h");
    return v;
  });
  const h = new Harness(new MemoryRunStore(), [wf]);
  await h.start("rec", null, "r1");
  await h.drain();
  h.clock.advance(3_600_000);
  await h.drain();
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0], seen[1]);
  assert.deepEqual((await h.store.getRun(T, "r1"))!.output, seen[0]);
});

test("replayed code that diverges from history is blocked with a NonDeterminismError naming both", async () => {
  const v1 = workflow("order", async (ctx) => {
    await ctx.step("charge", () => 1);
    await ctx.sleep("1h");
    return "v1";
  });
  const store = new MemoryRunStore();
  const h1 = new Harness(store, [v1]);
  await h1.start("order", null, "r1");
  await h1.drain();
  const v2 = workflow("order", async (ctx) => {
    await ctx.step("reserve", () => 1);
    await ctx.sleep("1h");
    return "v2";
  });
  const h2 = new Harness(store, [v2], h1.clock);
  h2.clock.advance(3_600_000);
  assert.deepEqual(await h2.drain(), ["waiting"]);
  const r = await store.getRun(T, "r1");
  assert.equal(r!.status, "waiting");
  assert.equal(r!.error!.name, "NonDeterminismError");
  assert.match(
    r!.error!.message,
    /position 0: history has step 'charge' but the code now calls step 'reserve'/,
  );
});

test("patched(): a run started under old code finishes under new code on the old path", async () => {
  const ran: string[] = [];
  const v1 = workflow("ship", async (ctx) => {
    await ctx.step("pack", () => ran.push("pack"));
    await ctx.sleep("1h");
    return await ctx.step("send", () => "sent");
  });
  // v2 weighs the parcel before packing: a change before the point old runs have reached.
  const v2 = workflow("ship", async (ctx) => {
    const weighed = ctx.patched("weigh-first") ? await ctx.step("weigh", () => "2kg") : null;
    await ctx.step("pack", () => ran.push("pack"));
    await ctx.sleep("1h");
    return [weighed, await ctx.step("send", () => "sent")];
  });
  const store = new MemoryRunStore();
  const h1 = new Harness(store, [v1]);
  await h1.start("ship", null, "old");
  await h1.drain();
  const h2 = new Harness(store, [v2], h1.clock);
  await h2.start("ship", null, "new");
  await h2.drain();
  h2.clock.advance(3_600_000);
  assert.deepEqual(await h2.drain(), ["completed", "completed"]);
  assert.deepEqual((await store.getRun(T, "old"))!.output, [null, "sent"]);
  assert.deepEqual((await store.getRun(T, "new"))!.output, ["2kg", "sent"]);
  assert.deepEqual(ran, ["pack", "pack"]);
  const hist = await store.loadHistory(T, "new", 0);
  assert.deepEqual(
    hist.map((e) => `${e.type}:${e.name}`),
    ["patch:weigh-first", "step:weigh", "step:pack", "timer:sleep", "step:send"],
  );
});
