/**
 * The singleton-job runner on memory locks: two nodes of one process share
 * one Locks, as two processes share a database.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openCoordination } from "../../../src/adapters/coordination/open-coordination.ts";
import { coordinationCleanupJobs, drain } from "../../../src/engine/coordination/cleanup-jobs.ts";
import { SYSTEM_TENANT } from "../../../src/engine/coordination/api-keys.ts";
import { startSingletonJobs } from "../../../src/engine/coordination/singleton-jobs.ts";
import {
  assertNoOverlap,
  assertOneNodeThenTakeover,
  recordingScenario,
  waitFor,
} from "../../coordination/support/singleton-scenario.ts";

void test("one node runs the job, never both at once; the other takes over when it stops", async () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  await assertOneNodeThenTakeover(c.locks, c.locks);
  await c.close();
});

void test("a holder that dies (stops extending) loses the job at the end of its lease", async () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  // A dead node: it holds job:recorder and never extends or releases it.
  const dead = await c.locks.acquire(SYSTEM_TENANT, "job:recorder", { leaseMs: 300 });
  assert.ok(dead !== null);
  const s = recordingScenario(5, 10, 300);
  const started = performance.now();
  const node = s.start("b", c.locks);
  await waitFor(() => s.rounds.length > 0, 3000, "b never took over");
  assert.ok(s.rounds[0]!.start - started >= 250, "b ran while the dead node's lease lasted");
  await node.stop();
  assertNoOverlap(s.rounds);
  await c.close();
});

void test("a failing job is reported at most once per interval and keeps its rounds", async () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  const reports: { job: string; message: string; suppressed: number }[] = [];
  let rounds = 0;
  const jobs = startSingletonJobs({
    locks: c.locks,
    errorIntervalMs: 200,
    onError: (job, e, suppressed) => reports.push({ job, message: e.message, suppressed }),
    jobs: [
      {
        name: "broken",
        intervalMs: 5,
        run: () => (rounds++, Promise.reject(new Error("table is gone"))),
      },
    ],
  });
  await sleep(300);
  await jobs.stop();
  assert.ok(rounds >= 10, `${rounds} rounds`);
  assert.ok(reports.length >= 1 && reports.length <= 2, `${reports.length} reports`);
  assert.deepEqual(reports[0], { job: "broken", message: "table is gone", suppressed: 0 });
  if (reports[1]) assert.ok(reports[1].suppressed > 0, "the next report counts the silent ones");
  await c.close();
});

void test("stop waits for a running round and gives the lock back", async () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  let finished = false;
  const jobs = startSingletonJobs({
    locks: c.locks,
    jobs: [
      {
        name: "slow",
        intervalMs: 10,
        run: async () => {
          await sleep(100);
          finished = true;
        },
      },
    ],
  });
  await sleep(40);
  await jobs.stop();
  assert.equal(finished, true);
  const again = await c.locks.acquire(SYSTEM_TENANT, "job:slow");
  assert.ok(again !== null, "the lock is free after stop");
  await c.close();
});

void test("drain: batches of 1000 until one is short, stopped by the signal", async () => {
  const backlog = [1000, 1000, 400, 1000];
  const asked: number[] = [];
  const removed = await drain((n) => {
    asked.push(n);
    return Promise.resolve(backlog.shift() ?? 0);
  }, new AbortController().signal);
  assert.equal(removed, 2400);
  assert.deepEqual(asked, [1000, 1000, 1000]);
  const stopped = AbortSignal.abort();
  assert.equal(await drain(() => Promise.resolve(1000), stopped), 0);
});

void test("the cleanup jobs empty the memory cache of expired entries", async () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  for (let i = 0; i < 2500; i++) await c.cache.set("acme", `k${i}`, i, 1);
  await c.cache.set("acme", "kept", "yes", 60_000);
  await sleep(10);
  const job = coordinationCleanupJobs(c).find((j) => j.name === "ttl-cache-cleanup")!;
  assert.equal(await job.run(new AbortController().signal), 2500);
  assert.equal(await c.cache.get("acme", "kept"), "yes");
  await c.close();
});

void test("the cleanup jobs: cache, counters, codes and tokens, each its own lock", () => {
  const c = openCoordination({ kind: "memory", keyPrefix: "t:" });
  assert.deepEqual(
    coordinationCleanupJobs(c).map((j) => j.name),
    ["ttl-cache-cleanup", "rate-limiter-cleanup", "one-time-code-cleanup", "tokens-cleanup"],
  );
});
