/**
 * The RunStore port's contract, run against the in-memory reference store and
 * every SQL backend (SQLite, PostgreSQL, MariaDB). Each case gets a fresh database.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import type { Ref, RunEvent, StepOutcome } from "../../src/domain/run-event.ts";
import type { Lease, NewRun, RunStore } from "../../src/engine/durable/run-store-port.ts";
import type { TaskStore as Store } from "../../src/engine/human-tasks/task-store-port.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { MemoryRunStore } from "../support/memory-run-store.ts";

const T = "tenant-a";
const NOW = 1_700_000_000_000;

const newRun = (id: string, extra: Partial<NewRun> = {}): NewRun => ({
  tenantId: T,
  id,
  workflow: "wf",
  input: { id },
  parentRunId: null,
  startedBy: "alice",
  now: NOW,
  ...extra,
});
/** A step event, or with data null a patch marker (the event type whose data is null). */
const ev = (
  seq: number,
  name = `s${seq}`,
  data: StepOutcome | (StepOutcome & Ref) | null = { result: seq },
): RunEvent =>
  data === null
    ? { seq, type: "patch", name, at: NOW + seq, data }
    : { seq, type: "step", name, at: NOW + seq, data };

interface Fixture {
  runs: RunStore;
  store: Store | undefined;
  close(): Promise<void>;
}

type Open = () => Promise<Fixture>;

function sqlFixture(b: Backend): Open {
  return async () => {
    const db = await createTestDatabase(b);
    const database = openDatabase(db.url);
    await database.migrate();
    const store = database.tasks;
    return {
      runs: database.runs,
      store,
      close: async () => {
        await database.close();
        await db.drop();
      },
    };
  };
}

const memoryFixture: Open = () =>
  Promise.resolve({ runs: new MemoryRunStore(), store: undefined, close: () => Promise.resolve() });

function cases(name: string, open: Open, opts: () => Promise<{ skip?: string }>, sql: boolean) {
  describe(`run store contract: ${name}`, async () => {
    const options = await opts();
    const t = (title: string, fn: (f: Fixture) => Promise<void>): void =>
      void it(title, options, async () => {
        const f = await open();
        try {
          await fn(f);
        } finally {
          await f.close();
        }
      });

    t("createRun is idempotent by id and the first input wins", async ({ runs, store }) => {
      const a = await runs.createRun(newRun("r1"));
      assert.equal(a.created, true);
      assert.equal(a.run.status, "pending");
      assert.equal(a.run.wakeAt, NOW);
      const b = await runs.createRun(newRun("r1", { input: "other" }));
      assert.equal(b.created, false);
      assert.deepEqual(b.run.input, { id: "r1" });
      const got = await runs.getRun(T, "r1");
      assert.equal(got!.workflow, "wf");
      assert.equal(got!.cancelRequested, false);
      assert.equal(await runs.getRun("other-tenant", "r1"), undefined);
      if (store && sql) {
        // The run owns a root instance: it is in the starter's process list.
        const procs = await store.listProcesses({ tenantId: T, startedBy: "alice", limit: 10 });
        assert.equal(procs.length, 1);
        assert.equal(procs[0]!.id, got!.rootInstanceId);
        assert.equal(procs[0]!.definitionKey, "wf");
        assert.equal(procs[0]!.processState, "open");
      }
    });

    // Concurrent starts may share a statement (PostgreSQL's write-batcher.ts): a
    // duplicate id among them must fail only itself.
    t("concurrent starts: each run created once, a duplicate id only itself", async (f) => {
      const { runs, store } = f;
      const ids = Array.from({ length: 30 }, (_, i) => `s${String(i).padStart(2, "0")}`);
      const starts = [
        ...ids.map((id) => runs.createRun(newRun(id, { idGenerated: true }))),
        ...[1, 2, 3].map((k) => runs.createRun(newRun("same", { input: k }))),
        ...ids.map((id) =>
          runs.createRun(newRun(`${id}-leased`, { leaseTo: { owner: "w1", until: NOW + 5_000 } })),
        ),
      ];
      const got = await Promise.all(starts);
      assert.equal(got.filter((g) => g.created).length, 61);
      const same = got.slice(30, 33);
      assert.equal(same.filter((g) => g.created).length, 1);
      const winner = same.find((g) => g.created)!.run.input;
      for (const g of same) assert.deepEqual(g.run.input, winner);
      for (const id of ids) {
        assert.equal((await runs.getRun(T, id))!.status, "pending", id);
        const leased = (await runs.getRun(T, `${id}-leased`))!;
        assert.deepEqual([leased.status, leased.leaseOwner], ["running", "w1"]);
      }
      assert.equal((await runs.claimRuns("w2", NOW, NOW + 5_000, 100)).length, 31);
      if (store && sql) {
        const procs = await store.listProcesses({ tenantId: T, startedBy: "alice", limit: 100 });
        assert.equal(procs.length, 61);
      }
    });

    t("a long caller id (128 chars) is accepted", async ({ runs }) => {
      const id = "x".repeat(128);
      assert.equal((await runs.createRun(newRun(id))).created, true);
      assert.equal((await runs.getRun(T, id))!.id, id);
    });

    t(
      "claim leases due runs once, only known workflows, and takes over expired leases",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        await runs.createRun(newRun("r2", { workflow: "other" }));
        await runs.createRun(newRun("r3", { now: NOW + 10_000 }));
        const c = await runs.claimRuns("w1", NOW + 1, NOW + 5_001, 10, ["wf"]);
        assert.deepEqual(
          c.map((r) => [r.id, r.status, r.leaseOwner, r.leaseUntil]),
          [["r1", "running", "w1", NOW + 5_001]],
        );
        assert.deepEqual(await runs.claimRuns("w2", NOW + 2, NOW + 5_002, 10, ["wf"]), []);
        // w1 dies: after its lease ends w2 takes the run over.
        const c2 = await runs.claimRuns("w2", NOW + 6_000, NOW + 11_000, 10, ["wf"]);
        assert.deepEqual(
          c2.map((r) => [r.id, r.leaseOwner]),
          [["r1", "w2"]],
        );
        const held = await runs.heartbeat("w1", NOW + 6_001, NOW + 11_001);
        assert.deepEqual(held, []);
      },
    );

    t("appends are fenced by the lease and by the seq", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
      const w1: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      const w2: Lease = { tenantId: T, runId: "r1", owner: "w2" };
      assert.equal(await runs.appendEvent(w1, ev(0)), true);
      assert.equal(await runs.appendEvent(w1, ev(0, "again")), false);
      assert.equal(await runs.appendEvent(w2, ev(1)), false);
      assert.equal(await runs.appendEvent(w1, ev(2, "s2", { ref: 0, result: "é ✓" })), true);
      assert.equal(await runs.appendEvent(w1, ev(1, "s1", null)), true);
      const h = await runs.loadHistory(T, "r1", 0);
      assert.deepEqual(
        h.map((e) => [e.seq, e.type, e.name, e.at, e.data]),
        [
          [0, "step", "s0", NOW, { result: 0 }],
          [1, "patch", "s1", NOW + 1, null],
          [2, "step", "s2", NOW + 2, { ref: 0, result: "é ✓" }],
        ],
      );
      assert.deepEqual(
        (await runs.loadHistory(T, "r1", 1)).map((e) => e.seq),
        [1, 2],
      );
      // Takeover: w2 now holds the lease, w1's writes go nowhere.
      await runs.claimRuns("w2", NOW + 10_000, NOW + 15_000, 1);
      assert.equal(await runs.appendEvent(w1, ev(3)), false);
      assert.equal(await runs.appendEvent(w2, ev(3)), true);
      assert.equal(await runs.finish(w1, "completed", 1, null, NOW), false);
    });

    // Concurrent appends of many runs may share a statement (PostgreSQL's
    // write-batcher.ts); each must still be judged by its own lease and seq.
    t("concurrent appends of many runs: each fenced by its own lease and seq", async ({ runs }) => {
      const n = 40;
      const ids = Array.from({ length: n }, (_, i) => `c${String(i).padStart(2, "0")}`);
      for (const id of ids) await runs.createRun(newRun(id));
      assert.equal((await runs.claimRuns("w1", NOW, NOW + 5_000, n)).length, n);
      const lease = (runId: string, owner = "w1"): Lease => ({ tenantId: T, runId, owner });
      const first = await Promise.all(ids.map((id) => runs.appendEvent(lease(id), ev(0))));
      assert.deepEqual(first, Array<boolean>(n).fill(true));

      // Phase 1, a new seq (written) beside another owner's append (refused):
      // a shared statement must tell them apart. Phase 2 adds taken seqs, which
      // fail a shared statement as a whole: the others must still be written.
      const phase = async (seq: number, dups: boolean) => {
        const jobs: { expect: boolean; p: Promise<boolean> }[] = [];
        ids.forEach((id, i) => {
          jobs.push({ expect: true, p: runs.appendEvent(lease(id), ev(seq, `ok${seq}.${i}`)) });
          if (dups && i % 3 === 0)
            jobs.push({ expect: false, p: runs.appendEvent(lease(id), ev(0, "dup")) });
          if (i % 5 === 0)
            jobs.push({ expect: false, p: runs.appendEvent(lease(id, "w2"), ev(9, "thief")) });
        });
        const got = await Promise.all(jobs.map((j) => j.p));
        assert.deepEqual(
          got,
          jobs.map((j) => j.expect),
        );
      };
      await phase(1, false);
      await phase(2, true);
      for (const [i, id] of ids.entries()) {
        const h = await runs.loadHistory(T, id, 0);
        assert.deepEqual(
          h.map((e) => [e.seq, e.name]),
          [
            [0, "s0"],
            [1, `ok1.${i}`],
            [2, `ok2.${i}`],
          ],
          id,
        );
      }
    });

    t("signals: kept until consumed, oldest first, consumed once", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      assert.equal(
        await runs.sendSignal(T, "nope", { id: "x", name: "go", payload: 1 }, NOW),
        undefined,
      );
      assert.equal(
        await runs.sendSignal(
          T,
          "r1",
          { id: "0190a000-0000-7000-8000-000000000001", name: "go", payload: { n: 1 } },
          NOW,
        ),
        true,
      );
      await runs.sendSignal(
        T,
        "r1",
        { id: "0190a000-0000-7000-8000-000000000002", name: "go", payload: { n: 2 } },
        NOW,
      );
      await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
      const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      const s = await runs.peekSignal(T, "r1", "go");
      assert.deepEqual(s?.payload, { n: 1 });
      assert.equal(await runs.peekSignal(T, "r1", "other"), undefined);
      const e: RunEvent = {
        seq: 0,
        type: "signal",
        name: "go",
        at: NOW,
        data: { payload: { n: 1 }, signalId: s.id },
      };
      assert.equal(await runs.consumeSignal(lease, s.id, e), true);
      assert.equal(await runs.consumeSignal(lease, s.id, { ...e, seq: 1 }), false);
      assert.deepEqual((await runs.peekSignal(T, "r1", "go"))?.payload, { n: 2 });
      assert.equal((await runs.loadHistory(T, "r1", 0)).length, 1);
      assert.equal(await runs.finish(lease, "completed", null, null, NOW), true);
      assert.equal(await runs.sendSignal(T, "r1", { id: "z", name: "go", payload: 3 }, NOW), false);
    });

    t("signal caps: pending and history, checked one sender at a time", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      const caps = { maxPending: 3, maxHistory: 0 };
      const sig = (i: number) => ({
        id: `0190a000-0000-7000-8000-00000000000${i}`,
        name: "go",
        payload: i,
      });
      // Ten at once: the cap holds under concurrency (the run's row is locked first).
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, i) => runs.sendSignal(T, "r1", sig(i), NOW, caps)),
      );
      assert.equal(sent.filter((r) => r === true).length, 3, JSON.stringify(sent));
      for (const r of sent.filter((x) => x !== true)) {
        assert.deepEqual(r, { refused: "pending", cap: 3 });
      }
      // Internal wake-ups carry no caps.
      assert.equal(
        await runs.sendSignal(T, "r1", { id: "w", name: "__task:x", payload: null }, NOW),
        true,
      );

      await runs.createRun(newRun("r2"));
      assert.equal((await runs.claimRuns("w1", NOW, NOW + 5_000, 5, ["wf"])).length, 2);
      const lease: Lease = { tenantId: T, runId: "r2", owner: "w1" };
      for (let i = 0; i < 4; i++) assert.equal(await runs.appendEvent(lease, ev(i)), true);
      const history = { maxPending: 0, maxHistory: 5 };
      assert.equal(await runs.sendSignal(T, "r2", sig(1), NOW, history), true);
      assert.deepEqual(await runs.sendSignal(T, "r2", sig(2), NOW, history), {
        refused: "history",
        cap: 5,
      });
      assert.equal(
        (await runs.peekSignal(T, "r2", "go"))?.payload,
        1,
        "the refused one is not stored",
      );
      assert.deepEqual(
        (await runs.loadHistory(T, "r2", 1, 2)).map((e) => e.seq),
        [1, 2],
        "loadHistory takes a limit",
      );
    });

    // MariaDB's utf8mb4_bin is PAD SPACE ('go' = 'go '): migration 015 makes it exact.
    t("names and keys compare exactly: trailing spaces make another name", async (f) => {
      const { runs, store } = f;
      await runs.createRun(newRun("r1"));
      const other = await runs.createRun(newRun("r1 ", { startedBy: "alice " }));
      assert.equal(other.created, true, "'r1 ' is another run than 'r1'");
      assert.equal((await runs.getRun(T, "r1 "))?.id, "r1 ");
      await runs.sendSignal(
        T,
        "r1",
        { id: "0190a000-0000-7000-8000-000000000001", name: "go ", payload: 1 },
        NOW,
      );
      assert.equal(await runs.peekSignal(T, "r1", "go"), undefined, "'go ' is not 'go'");
      assert.equal((await runs.peekSignal(T, "r1", "go "))?.payload, 1);
      assert.equal((await runs.claimRuns("w1", NOW, NOW + 5_000, 2, ["wf"])).length, 2);
      const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      assert.equal(await runs.suspend(lease, null, ["go"], NOW + 1), "suspended");
      assert.deepEqual(
        (await runs.listRuns({ tenantId: T, startedBy: "alice", limit: 10 })).map((r) => r.id),
        ["r1"],
      );
      assert.deepEqual(
        (await runs.listRuns({ tenantId: T, workflow: "wf ", limit: 10 })).map((r) => r.id),
        [],
      );
      if (store && sql) {
        const procs = await store.listProcesses({ tenantId: T, startedBy: "alice", limit: 10 });
        assert.equal(procs.length, 1, "'alice ' started the other process");
      }
    });

    t(
      "suspend parks the run; a signal or cancel wakes it; a pending one wakes it at once",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
        const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        assert.equal(await runs.suspend(lease, null, ["go"], NOW + 1), "suspended");
        let r = await runs.getRun(T, "r1");
        assert.deepEqual([r!.status, r!.wakeAt, r!.leaseOwner], ["waiting", null, null]);
        assert.equal(await runs.suspend(lease, null, ["go"], NOW + 1), "lost");
        assert.deepEqual(await runs.claimRuns("w1", NOW + 2, NOW + 5_000, 1), []);
        await runs.sendSignal(
          T,
          "r1",
          { id: "0190a000-0000-7000-8000-000000000001", name: "go", payload: 1 },
          NOW + 3,
        );
        r = await runs.getRun(T, "r1");
        assert.equal(r!.wakeAt, NOW + 3);
        assert.equal((await runs.claimRuns("w1", NOW + 3, NOW + 5_000, 1)).length, 1);
        // The signal is still unconsumed: suspending on it again wakes at once.
        assert.equal(await runs.suspend(lease, NOW + 99_000, ["go"], NOW + 4), "wakeNow");
        assert.equal((await runs.getRun(T, "r1"))!.wakeAt, NOW + 4);
        await runs.claimRuns("w1", NOW + 5, NOW + 5_000, 1);
        assert.equal(await runs.suspend(lease, NOW + 99_000, ["other"], NOW + 5), "suspended");
        assert.equal((await runs.getRun(T, "r1"))!.wakeAt, NOW + 99_000);
        assert.equal(await runs.nextWakeAt(NOW + 6), NOW + 99_000);
        const c = await runs.requestCancel(T, "r1", NOW + 7);
        assert.equal(c!.cancelRequested, true);
        assert.equal(c!.wakeAt, NOW + 7);
        assert.equal(await runs.requestCancel(T, "nope", NOW), undefined);
        await runs.claimRuns("w1", NOW + 8, NOW + 5_000, 1);
        assert.equal(await runs.suspend(lease, null, [], NOW + 9), "wakeNow");
      },
    );

    t(
      "suspend with a blocking failure keeps the run waiting with the error; cancel does not wake it",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
        const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        await runs.requestCancel(T, "r1", NOW);
        const failure = {
          name: "NonDeterminismError",
          message: "diverged",
          stack: null,
          nonRetryable: true,
        };
        assert.equal(await runs.suspend(lease, NOW + 60_000, [], NOW + 1, failure), "suspended");
        let r = await runs.getRun(T, "r1");
        assert.deepEqual([r!.status, r!.wakeAt], ["waiting", NOW + 60_000]);
        assert.equal(r!.error?.message, "diverged");
        await runs.claimRuns("w1", NOW + 60_000, NOW + 65_000, 1);
        assert.equal(await runs.suspend(lease, NOW + 99_000, [], NOW + 60_001), "wakeNow");
        r = await runs.getRun(T, "r1");
        assert.equal(r!.error, null);
      },
    );

    t(
      "dropSignals marks hints seen without history; they no longer wake a suspend",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
        const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        await runs.sendSignal(
          T,
          "r1",
          { id: "0190a000-0000-7000-8000-000000000001", name: "__task:x", payload: null },
          NOW,
        );
        await runs.dropSignals(lease, ["__task:x"]);
        assert.equal(await runs.peekSignal(T, "r1", "__task:x"), undefined);
        assert.equal(await runs.suspend(lease, null, ["__task:x"], NOW), "suspended");
        assert.deepEqual(await runs.loadHistory(T, "r1", 0), []);
      },
    );

    t("heartbeat extends the leases an owner holds and reports cancellation", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      await runs.createRun(newRun("r2"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 2);
      await runs.requestCancel(T, "r2", NOW + 1);
      const held = await runs.heartbeat("w1", NOW + 2, NOW + 7_000);
      assert.deepEqual(held.map((h) => [h.id, h.cancelRequested]).sort(), [
        ["r1", false],
        ["r2", true],
      ]);
      assert.equal((await runs.getRun(T, "r1"))!.leaseUntil, NOW + 7_000);
      assert.deepEqual(await runs.claimRuns("w2", NOW + 6_000, NOW + 11_000, 2), []);
    });

    t("finish records output or error and closes the root instance", async ({ runs, store }) => {
      await runs.createRun(newRun("r1"));
      await runs.createRun(newRun("r2"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 2);
      const l1: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      const l2: Lease = { tenantId: T, runId: "r2", owner: "w1" };
      assert.equal(await runs.finish(l1, "completed", { total: 3 }, null, NOW + 10), true);
      const failure = { name: "Error", message: "x", stack: null, nonRetryable: false };
      assert.equal(await runs.finish(l2, "failed", null, failure, NOW + 11), true);
      const r1 = await runs.getRun(T, "r1");
      assert.deepEqual(
        [r1!.status, r1!.output, r1!.error, r1!.wakeAt],
        ["completed", { total: 3 }, null, null],
      );
      const r2 = await runs.getRun(T, "r2");
      assert.deepEqual([r2!.status, r2!.error], ["failed", failure]);
      assert.equal(await runs.finish(l1, "completed", 1, null, NOW), false);
      if (store && sql) {
        const inst = await store.getInstance(T, r1!.rootInstanceId!);
        assert.equal(inst!.status, "completed");
        assert.equal(inst!.processState, "closed");
      }
    });

    t(
      "finish with extras writes the tail events with the outcome, all or nothing",
      async ({ runs, store }) => {
        const { run } = await runs.createRun(newRun("r1"));
        await runs.createRun(newRun("r2"));
        await runs.claimRuns("w1", NOW, NOW + 5_000, 2);
        const l1: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        const l2: Lease = { tenantId: T, runId: "r2", owner: "w1" };
        const extras = (events: RunEvent[]) => ({
          rootInstanceId: run.rootInstanceId,
          parentRunId: null,
          events,
        });
        assert.equal(await runs.appendEvent(l1, ev(0)), true);
        assert.equal(
          await runs.finish(l1, "completed", "out", null, NOW + 5, extras([ev(1), ev(2)])),
          true,
        );
        assert.deepEqual(
          (await runs.loadHistory(T, "r1", 0)).map((e) => [e.seq, e.name, e.data]),
          [
            [0, "s0", { result: 0 }],
            [1, "s1", { result: 1 }],
            [2, "s2", { result: 2 }],
          ],
        );
        assert.equal((await runs.getRun(T, "r1"))!.status, "completed");
        if (store && sql) {
          const inst = await store.getInstance(T, run.rootInstanceId!);
          assert.deepEqual([inst!.status, inst!.processState], ["completed", "closed"]);
        }
        // A seq already taken fences the whole finish: no event, no outcome.
        assert.equal(await runs.appendEvent(l2, ev(1)), true);
        const r2root = (await runs.getRun(T, "r2"))!.rootInstanceId;
        const x2 = { rootInstanceId: r2root, parentRunId: null, events: [ev(2), ev(1, "other")] };
        assert.equal(await runs.finish(l2, "completed", "out", null, NOW + 6, x2), false);
        assert.equal((await runs.loadHistory(T, "r2", 0)).length, 1);
        assert.equal((await runs.getRun(T, "r2"))!.status, "running");
        // Without the lease: nothing either.
        const stolen: Lease = { ...l2, owner: "w2" };
        const x3 = { rootInstanceId: r2root, parentRunId: null, events: [ev(5)] };
        assert.equal(await runs.finish(stolen, "completed", "out", null, NOW + 7, x3), false);
        assert.equal((await runs.loadHistory(T, "r2", 0)).length, 1);
      },
    );

    // Concurrent outcomes may share a statement (PostgreSQL's write-batcher.ts):
    // each judged by its own lease and seqs, each child waking its parent.
    t(
      "concurrent finishes: each by its own lease and seqs, children wake the parent",
      async (f) => {
        const { runs } = f;
        await runs.createRun(newRun("p"));
        await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
        const lp: Lease = { tenantId: T, runId: "p", owner: "w1" };
        assert.equal(await runs.suspend(lp, null, [], NOW), "suspended");
        const ids = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, "0")}`);
        const roots = new Map<string, string | null>();
        for (const id of ids) {
          const { run } = await runs.createRun(newRun(id, { parentRunId: "p", now: NOW + 1 }));
          roots.set(id, run.rootInstanceId);
        }
        assert.equal((await runs.claimRuns("w1", NOW + 1, NOW + 5_000, 100)).length, 30);
        // First half: lease held or not (a shared statement must tell them apart);
        // the second half adds taken seqs, which fail a shared statement as a whole.
        const fate = (i: number) =>
          i % 4 === 0 ? "stolen" : i >= 15 && i % 5 === 1 ? "seq-taken" : "ok";
        for (const [i, id] of ids.entries()) {
          if (fate(i) === "seq-taken") {
            assert.equal(
              await runs.appendEvent({ tenantId: T, runId: id, owner: "w1" }, ev(2)),
              true,
            );
          }
        }
        const finishAll = (part: string[], offset: number) =>
          Promise.all(
            part.map((id, j) =>
              runs.finish(
                { tenantId: T, runId: id, owner: fate(offset + j) === "stolen" ? "w2" : "w1" },
                "completed",
                { id },
                null,
                NOW + 10,
                { rootInstanceId: roots.get(id)!, parentRunId: "p", events: [ev(1), ev(2)] },
              ),
            ),
          );
        const got = [
          ...(await finishAll(ids.slice(0, 15), 0)),
          ...(await finishAll(ids.slice(15), 15)),
        ];
        assert.deepEqual(
          got,
          ids.map((_, i) => fate(i) === "ok"),
        );
        for (const [i, id] of ids.entries()) {
          const r = (await runs.getRun(T, id))!;
          const h = (await runs.loadHistory(T, id, 0)).map((e) => [e.seq, e.name]);
          const woke = await runs.peekSignal(T, "p", `__child:${id}`);
          if (fate(i) === "ok") {
            assert.deepEqual([r.status, r.output, r.leaseOwner], ["completed", { id }, null], id);
            assert.deepEqual(
              h,
              [
                [1, "s1"],
                [2, "s2"],
              ],
              id,
            );
            assert.notEqual(woke, undefined, id);
          } else {
            assert.deepEqual([r.status, r.output], ["running", null], id);
            assert.deepEqual(h, fate(i) === "seq-taken" ? [[2, "s2"]] : [], id);
            assert.equal(woke, undefined, id);
          }
        }
        // The parent was waiting with no timer: a child's outcome made it due.
        const parent = (await runs.getRun(T, "p"))!;
        assert.deepEqual([parent.status, parent.wakeAt], ["waiting", NOW + 10]);
      },
    );

    t("continueAsNew drops the old generation's history and keeps the lease", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
      const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      for (let i = 0; i < 3; i++) await runs.appendEvent(lease, ev(i));
      assert.equal(await runs.continueAsNew(lease, { next: 1 }, 3, NOW + 1), true);
      const r = await runs.getRun(T, "r1");
      assert.deepEqual(
        [r!.generation, r!.firstSeq, r!.input, r!.status],
        [1, 3, { next: 1 }, "running"],
      );
      assert.deepEqual(await runs.loadHistory(T, "r1", 0), []);
      assert.equal(await runs.appendEvent(lease, ev(3)), true);
    });

    t("release makes the run claimable at once", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 1);
      await runs.release({ tenantId: T, runId: "r1", owner: "w1" }, NOW + 1);
      assert.equal((await runs.claimRuns("w2", NOW + 1, NOW + 5_000, 1)).length, 1);
    });

    t(
      "stalled executions: one per claim, one less per release, 0 after suspend or continueAsNew",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        let at = NOW;
        // Each claim after the previous lease ran out (a crashed worker), or after a release.
        const claim = async () => {
          const c = await runs.claimRuns("w1", at, at + 5_000, 1);
          at += 6_000;
          return c.map((r) => r.stalledExecutions);
        };
        assert.deepEqual(await claim(), [1]);
        assert.deepEqual(await claim(), [2]);
        // A release gives the run back (a store error, a drain): it takes back its claim's count.
        await runs.release(lease, at);
        assert.equal((await runs.getRun(T, "r1"))!.stalledExecutions, 1);
        assert.deepEqual(await claim(), [2]);
        assert.deepEqual(await claim(), [3]);
        assert.equal((await runs.getRun(T, "r1"))!.stalledExecutions, 3);
        assert.equal(await runs.suspend(lease, at, [], at), "suspended");
        assert.equal((await runs.getRun(T, "r1"))!.stalledExecutions, 0);
        assert.deepEqual(await claim(), [1]);
        assert.deepEqual(await claim(), [2]);
        assert.equal(await runs.continueAsNew(lease, { next: 1 }, 0, at), true);
        assert.equal((await runs.getRun(T, "r1"))!.stalledExecutions, 0);
      },
    );

    t(
      "stalled executions start again at 1 when the history grew since the last claim",
      async ({ runs }) => {
        await runs.createRun(newRun("r1"));
        const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
        let at = NOW;
        const claim = async () => {
          const c = await runs.claimRuns("w1", at, at + 5_000, 1);
          at += 6_000;
          return c.map((r) => r.stalledExecutions);
        };
        assert.deepEqual(await claim(), [1]);
        assert.deepEqual(await claim(), [2]);
        // The execution after that claim got somewhere (a step recorded), then its node died.
        assert.equal(await runs.appendEvent(lease, ev(0)), true);
        assert.deepEqual(await claim(), [1]);
        assert.deepEqual(await claim(), [2]);
        assert.equal((await runs.getRun(T, "r1"))!.stalledExecutions, 2);
        assert.equal(await runs.appendEvent(lease, ev(1)), true);
        assert.equal(await runs.appendEvent(lease, ev(2)), true);
        assert.deepEqual(await claim(), [1]);
      },
    );

    t("quarantine is fenced, and keeps the run from every claim", async ({ runs }) => {
      await runs.createRun(newRun("r1"));
      await runs.createRun(newRun("r2"));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 2);
      const lease: Lease = { tenantId: T, runId: "r1", owner: "w1" };
      const failure = {
        name: "RunQuarantined",
        message: "quarantined: …",
        stack: null,
        nonRetryable: true,
        type: "quarantined",
      };
      assert.equal(await runs.quarantine({ ...lease, owner: "w2" }, failure, NOW + 1), false);
      assert.equal(await runs.quarantine(lease, failure, NOW + 1), true);
      const r = (await runs.getRun(T, "r1"))!;
      assert.deepEqual(
        [r.status, r.wakeAt, r.leaseOwner, r.leaseUntil, r.error, r.updatedAt],
        ["quarantined", null, null, null, failure, NOW + 1],
      );
      assert.equal(await runs.quarantine(lease, failure, NOW + 2), false);
      // Not even after every lease has run out; r2's lease lapsed, so it is claimed again.
      const later = await runs.claimRuns("w2", NOW + 1e9, NOW + 1e9 + 5_000, 10);
      assert.deepEqual(
        later.map((x) => x.id),
        ["r2"],
      );
      const listed = await runs.listRuns({ tenantId: T, status: "quarantined", limit: 10 });
      assert.deepEqual(
        listed.map((x) => x.id),
        ["r1"],
      );
    });

    t("a run started leased goes to its owner, not to the claim", async ({ runs }) => {
      const { run } = await runs.createRun(
        newRun("r1", { leaseTo: { owner: "w1", until: NOW + 5_000 } }),
      );
      assert.deepEqual([run.status, run.leaseOwner], ["running", "w1"]);
      assert.deepEqual(await runs.claimRuns("w2", NOW + 1, NOW + 5_000, 1), []);
      assert.equal(await runs.appendEvent({ tenantId: T, runId: "r1", owner: "w1" }, ev(0)), true);
    });

    t("listRuns filters by status and workflow and pages by id", async ({ runs }) => {
      for (let i = 0; i < 5; i++)
        await runs.createRun(newRun(`r${i}`, { workflow: i < 3 ? "a" : "b" }));
      await runs.claimRuns("w1", NOW, NOW + 5_000, 1, ["b"]);
      const a = await runs.listRuns({ tenantId: T, workflow: "a", limit: 2 });
      assert.deepEqual(
        a.map((r) => r.id),
        ["r0", "r1"],
      );
      const a2 = await runs.listRuns({ tenantId: T, workflow: "a", limit: 2, after: "r1" });
      assert.deepEqual(
        a2.map((r) => r.id),
        ["r2"],
      );
      const running = await runs.listRuns({ tenantId: T, status: "running", limit: 10 });
      assert.deepEqual(
        running.map((r) => r.id),
        ["r3"],
      );
      assert.deepEqual(await runs.listRuns({ tenantId: "x", limit: 10 }), []);
    });

    t("listRuns filters by starter and a half-open creation window", async ({ runs }) => {
      // Concurrent starts: on PostgreSQL they share a statement (write-batcher.ts), which must
      // record each run's own starter too.
      const spec = [
        ["r1", "alice", 0],
        ["r2", "bob", 1_000],
        ["r3", "alice", 2_000],
        ["r4", "carol", 3_000],
        ["r5", "alice", 4_000],
      ] as const;
      await Promise.all(
        spec.map(([id, startedBy, at]) =>
          runs.createRun(newRun(id, { startedBy, now: NOW + at, idGenerated: true })),
        ),
      );
      const ids = async (q: Partial<Parameters<RunStore["listRuns"]>[0]>) =>
        (await runs.listRuns({ tenantId: T, limit: 10, ...q })).map((r) => r.id);
      assert.equal((await runs.getRun(T, "r2"))!.startedBy, "bob");
      assert.deepEqual(await ids({ startedBy: "alice" }), ["r1", "r3", "r5"]);
      assert.deepEqual(await ids({ startedBy: "alice", limit: 2, after: "r1" }), ["r3", "r5"]);
      assert.deepEqual(await ids({ startedBy: "nobody" }), []);
      assert.deepEqual(await ids({ createdFrom: NOW + 1_000 }), ["r2", "r3", "r4", "r5"]);
      assert.deepEqual(await ids({ createdUntil: NOW + 1_000 }), ["r1"]);
      assert.deepEqual(await ids({ createdFrom: NOW + 1_000, createdUntil: NOW + 3_000 }), [
        "r2",
        "r3",
      ]);
      assert.deepEqual(await ids({ startedBy: "alice", createdFrom: NOW + 1 }), ["r3", "r5"]);
      assert.deepEqual(await ids({ createdFrom: NOW + 2_000, createdUntil: NOW + 2_000 }), []);
    });

    t(
      "listRuns newest first: by creation time then id, descending, paged by position",
      async ({ runs }) => {
        // Caller ids that do not follow time ("b" before "a"), and two runs of one millisecond.
        const spec = [
          ["z-first", 0],
          ["b-second", 1_000],
          ["a-third", 2_000],
          ["m-tie", 3_000],
          ["n-tie", 3_000],
        ] as const;
        for (const [id, at] of spec) await runs.createRun(newRun(id, { now: NOW + at }));
        const page = async (limit: number, before?: { createdAt: number; id: string }) =>
          (await runs.listRuns({ tenantId: T, limit, order: "newest", before })).map((r) => r.id);
        assert.deepEqual(await page(10), ["n-tie", "m-tie", "a-third", "b-second", "z-first"]);
        assert.deepEqual(await page(10, { createdAt: NOW + 3_000, id: "n-tie" }), [
          "m-tie",
          "a-third",
          "b-second",
          "z-first",
        ]);
        assert.deepEqual(await page(2, { createdAt: NOW + 2_000, id: "a-third" }), [
          "b-second",
          "z-first",
        ]);
        const filtered = await runs.listRuns({
          tenantId: T,
          limit: 10,
          order: "newest",
          createdUntil: NOW + 2_000,
        });
        assert.deepEqual(
          filtered.map((r) => r.id),
          ["b-second", "z-first"],
        );
      },
    );

    if (sql) {
      t("a child run records its parent's starter, like its root instance", async ({ runs }) => {
        await runs.createRun(newRun("parent", { startedBy: "dave" }));
        const { run } = await runs.createRun(
          newRun("parent:child", { parentRunId: "parent", startedBy: "" }),
        );
        assert.equal(run.startedBy, "dave");
        assert.equal((await runs.getRun(T, "parent:child"))!.startedBy, "dave");
        const byDave = await runs.listRuns({ tenantId: T, startedBy: "dave", limit: 10 });
        assert.deepEqual(
          byDave.map((r) => r.id),
          ["parent", "parent:child"],
        );
      });
    }

    t(
      "served workflows: newest sighting per name; rows older than forgetBefore forgotten",
      async ({ runs }) => {
        const record = (node: string, workflows: string[], now: number, forgetBefore = NOW - 1) =>
          runs.recordServed({ node, workflows, now, forgetBefore });
        assert.equal(await runs.lastServed("wf"), null);
        assert.deepEqual(await record("n1", ["wf", "other"], NOW), { recorded: 2, forgotten: 0 });
        assert.deepEqual(await record("n2", ["wf"], NOW + 10), { recorded: 1, forgotten: 0 });
        assert.equal(await runs.lastServed("wf"), NOW + 10);
        assert.equal(await runs.lastServed("other"), NOW);
        assert.equal(await runs.lastServed("w"), null, "names match exactly");
        // A refresh moves the node's own rows forward (an upsert, not a second row).
        assert.deepEqual(await record("n1", ["wf", "other"], NOW + 20), {
          recorded: 2,
          forgotten: 0,
        });
        assert.equal(await runs.lastServed("other"), NOW + 20);
        // n2 (last seen NOW + 10) is older than forgetBefore: deleted, whoever records.
        assert.deepEqual(await record("n3", [], NOW + 30, NOW + 15), { recorded: 0, forgotten: 1 });
        assert.equal(await runs.lastServed("wf"), NOW + 20);
        assert.deepEqual(await record("n3", [], NOW + 40, NOW + 25), { recorded: 0, forgotten: 2 });
        assert.equal(await runs.lastServed("wf"), null);
        assert.equal(await runs.lastServed("other"), null);
      },
    );

    if (sql) {
      t(
        "concurrent claimers never get the same run (SKIP LOCKED / single writer)",
        async ({ runs }) => {
          for (let i = 0; i < 60; i++)
            await runs.createRun(newRun(`r${String(i).padStart(2, "0")}`));
          const got = new Map<string, string>();
          const claimer = async (owner: string) => {
            for (;;) {
              const c = await runs.claimRuns(owner, NOW, NOW + 60_000, 7);
              if (c.length === 0) return;
              for (const r of c) {
                assert.equal(got.has(r.id), false, `${r.id} claimed twice`);
                got.set(r.id, owner);
              }
            }
          };
          await Promise.all(["a", "b", "c", "d"].map(claimer));
          assert.equal(got.size, 60);
        },
      );
    }
  });
}

cases("memory", memoryFixture, () => Promise.resolve({}), false);
for (const b of backends) cases(b.name, sqlFixture(b), () => backendTestOptions(b), true);
