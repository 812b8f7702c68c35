/**
 * Two nodes run the singleton-job runner with one job that records each round
 * (which node, when it started and ended). Shared by the memory unit test and
 * the backend suite: what must hold is the same on every lock implementation.
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import type { Locks } from "../../../src/engine/coordination/locks-port.ts";
import {
  startSingletonJobs,
  type SingletonJobs,
} from "../../../src/engine/coordination/singleton-jobs.ts";

export interface Round {
  node: string;
  start: number;
  end: number;
}

export interface Scenario {
  rounds: Round[];
  errors: string[];
  start(node: string, locks: Locks): SingletonJobs;
}

/** A job that takes `roundMs` per round, every `intervalMs`, recording its rounds. */
export function recordingScenario(roundMs = 30, intervalMs = 10, leaseMs = 1500): Scenario {
  const rounds: Round[] = [];
  const errors: string[] = [];
  return {
    rounds,
    errors,
    start: (node, locks) =>
      startSingletonJobs({
        locks,
        leaseMs,
        onError: (job, e) => errors.push(`${node} ${job}: ${e.message}`),
        jobs: [
          {
            name: "recorder",
            intervalMs,
            run: async () => {
              const start = performance.now();
              await sleep(roundMs);
              rounds.push({ node, start, end: performance.now() });
            },
          },
        ],
      }),
  };
}

/** No two rounds overlap in time, whichever nodes ran them. */
export function assertNoOverlap(rounds: readonly Round[]): void {
  const sorted = [...rounds].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    assert.ok(
      cur.start >= prev.end,
      `${cur.node}'s round started at ${cur.start.toFixed(1)} while ${prev.node}'s ran until ${prev.end.toFixed(1)}`,
    );
  }
}

/**
 * Node a starts first and holds the job; b only skips. a stops: b takes over
 * and a runs no more. Every round, before and after, alone.
 */
export async function assertOneNodeThenTakeover(
  a: Locks,
  b: Locks,
  options: { settleMs?: number; takeoverMs?: number } = {},
): Promise<void> {
  const { settleMs = 400, takeoverMs = 3000 } = options;
  const s = recordingScenario();
  const nodeA = s.start("a", a);
  await waitFor(() => s.rounds.length > 0, takeoverMs, "node a never ran the job");
  const nodeB = s.start("b", b);
  await sleep(settleMs);
  const before = s.rounds.length;
  assert.ok(before >= 3, `only ${before} rounds in ${settleMs} ms`);
  assert.deepEqual(new Set(s.rounds.map((r) => r.node)), new Set(["a"]), "b ran while a held it");
  await nodeA.stop();
  const stoppedAt = performance.now();
  await waitFor(
    () => s.rounds.some((r) => r.node === "b"),
    takeoverMs,
    "b did not take over after a stopped",
  );
  await sleep(100);
  await nodeB.stop();
  assert.ok(
    s.rounds.filter((r) => r.node === "a").every((r) => r.end <= stoppedAt),
    "a ran after it stopped",
  );
  assertNoOverlap(s.rounds);
  assert.deepEqual(s.errors, []);
}

export async function waitFor(ok: () => boolean, ms: number, message: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) assert.fail(message);
    await sleep(5);
  }
}
