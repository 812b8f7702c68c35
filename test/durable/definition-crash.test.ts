/**
 * Real processes running a published definition (a code step, a user task, a
 * durable timer, another code step) while the process executing the runs is
 * killed with SIGKILL, 20 times. Every one of the 200 processes must end, and
 * no code step whose completion a run recorded may run again: executions are
 * counted in a side file the steps write (support/definition-crash-steps.ts).
 *
 * PostgreSQL and MariaDB: an API node that is never killed and three workers,
 * one killed and replaced each time; SQLite: the single node, killed and
 * started again (support/definition-crash-cluster.ts). The processes run the
 * compiled binary, as test/durable/worker-process.test.ts does: `npm run
 * build` first (npm ci does it).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import { CRASH_USER as USER, CrashCluster } from "./support/definition-crash-cluster.ts";
import { crashStepsSource } from "./support/definition-crash-steps.ts";
import { inFlight, readStepLog } from "./support/process-step-log.ts";

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return --
   REST bodies are untyped JSON, read by field */

const RUNS = 200;
const KILLS = 20;
/** Kills aim at a process running a step (see the kill loop); half must catch one. */
const MIN_HITS = Math.ceil(KILLS / 2);

const DEFINITION = {
  key: "crash-flow",
  name: "Crash flow",
  vars: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
  start: "prepare",
  states: {
    prepare: {
      type: "call",
      step: "crash-prepare",
      input: "{ 'n': vars.n }",
      resultVar: "prepared",
      next: "review",
    },
    review: {
      type: "userTask",
      assignee: { user: USER },
      title: "Review {{ vars.n }}",
      next: "cool",
    },
    // Longer than the runtime's in-memory wait (1 s): a durable timer, suspended and claimed again.
    cool: { type: "timer", duration: "1500ms", next: "settle" },
    settle: {
      type: "call",
      step: "crash-settle",
      input: "{ 'prepared': vars.prepared }",
      resultVar: "settled",
      next: "done",
    },
    done: { type: "end" },
  },
};

/**
 * Completes the user's open tasks as they appear, until stopped. Tolerates the
 * API going away and a task finished meanwhile (409): it asks again later.
 */
function completer(cluster: CrashCluster): { stop(): Promise<number> } {
  let running = true;
  let completed = 0;
  const loop = (async () => {
    while (running) {
      const page = await cluster.request("GET", `/v1/tasks?user=${USER}&limit=100`);
      const items: { id: string }[] = page?.status === 200 ? page.body.items : [];
      for (const t of items) {
        const r = await cluster.request("POST", `/v1/tasks/${t.id}/complete`, {});
        if (r?.status === 200) completed++;
      }
      if (items.length === 0) await sleep(100);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return completed;
    },
  };
}

function suite(b: Backend) {
  describe(`a published definition under kill -9 on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    it(
      `${KILLS} kill -9 while ${RUNS} processes run (code step, user task, timer, code step): all end, no recorded step runs again`,
      { ...options, timeout: 300_000 },
      async () => {
        const db = await createTestDatabase(b);
        const dir = mkdtempSync(join(tmpdir(), "tf-def-crash-"));
        const stepLog = join(dir, "steps.log");
        const steps = join(dir, "steps.mjs");
        writeFileSync(steps, crashStepsSource);
        const cluster = new CrashCluster(b, db.url, stepLog, steps);
        const tasks = completer(cluster);
        const runIds: string[] = [];
        const victims: number[] = [];
        try {
          await cluster.start();
          const t0 = Date.now();
          const secs = () => ((Date.now() - t0) / 1000).toFixed(1);
          const published = await cluster.call(
            "POST",
            `/v1/definitions/${DEFINITION.key}/publish`,
            DEFINITION,
          );
          assert.equal(published.version, 1);
          const startOne = async (n: number) => {
            const r = await cluster.call("POST", "/v1/processes", {
              processKey: DEFINITION.key,
              vars: { n },
            });
            assert.equal(typeof r.runId, "string", JSON.stringify(r));
            runIds[n] = r.runId as string;
          };
          let started = 0;
          const perKill = Math.ceil(RUNS / KILLS);
          for (let kills = 0; kills < KILLS; kills++) {
            // A batch at once: its first steps run right away, for the kill to catch.
            const batch: Promise<void>[] = [];
            for (let j = 0; j < perKill && started < RUNS; j++) batch.push(startOne(started++));
            await Promise.all(batch);
            await sleep(100 + Math.random() * 300);
            // A kill that catches no step in flight proves nothing about recovery: wait
            // (at most a couple of seconds) for an executor to be running one.
            await cluster.readyForKill();
            let busy: number[] = [];
            for (const until = Date.now() + 2_000; Date.now() < until; await sleep(10)) {
              const log = readStepLog(stepLog);
              busy = cluster.executors
                .map((e) => e.pid)
                .filter((pid) => inFlight(log, pid).length > 0);
              if (busy.length > 0) break;
            }
            cluster.assertNoUnexpectedExit();
            victims.push(await cluster.killOne(busy));
          }
          while (started < RUNS) await startOne(started++);
          const killsDone = secs();

          const finals = new Map<string, any>();
          for (const until = Date.now() + 60_000; finals.size < RUNS; await sleep(250)) {
            cluster.assertNoUnexpectedExit();
            for (const id of runIds.filter((x) => !finals.has(x))) {
              const run = await cluster.call("GET", `/v1/runs/${id}`);
              if (["completed", "failed", "cancelled"].includes(run.status)) finals.set(id, run);
            }
            if (Date.now() >= until) {
              const left = runIds.filter((x) => !finals.has(x));
              const lefts = await Promise.all(
                left.map(async (id) => await cluster.call("GET", `/v1/runs/${id}`)),
              );
              const statuses = lefts.map((r) => r.status as string);
              const why = lefts.find((r) => r.error !== null)?.error?.message;
              const counts = Object.entries(
                statuses.reduce<Record<string, number>>(
                  (c, st: string) => ({ ...c, [st]: (c[st] ?? 0) + 1 }),
                  {},
                ),
              );
              assert.fail(
                `only ${finals.size}/${RUNS} processes ended within 60 s; the others: ${JSON.stringify(Object.fromEntries(counts))}${why === undefined ? "" : `; one says: ${why}`}`,
              );
            }
          }
          // Fewer than RUNS when a node died after committing a completion, before answering.
          const completedTasks = await tasks.stop();
          const allEnded = secs();
          cluster.assertNoUnexpectedExit();
          for (const [id, run] of finals) {
            assert.equal(run.status, "completed", `${id}: ${JSON.stringify(run.error)}`);
          }

          // Executions (the side file) against recorded completions (the runs' histories).
          const log = readStepLog(stepLog);
          let recorded = 0;
          let rerun = 0;
          for (const [i, id] of runIds.entries()) {
            const history: { seq: number; type: string; at: string; data: any }[] = (
              await cluster.call("GET", `/v1/runs/${id}/history`)
            ).items;
            assert.ok(
              history.some((e) => e.type === "task"),
              `${id}: the user task's completion recorded`,
            );
            const steps = history.filter((e) => e.type === "step");
            assert.equal(steps.length, 2, `${id}: two code steps recorded`);
            assert.deepEqual(
              steps.map((e) => e.data.result),
              [2 * i, 2 * i + 1],
              `${id}: the steps' results`,
            );
            for (const e of steps) {
              recorded++;
              const key = `${id}:${e.data.ref ?? e.seq}`;
              const starts = log.starts.get(key) ?? [];
              assert.ok(starts.length >= 1, `${key}: recorded but never executed`);
              assert.ok(log.ends.has(key), `${key}: recorded but no execution finished`);
              if (starts.length > 1) rerun++;
              for (const t of starts)
                assert.ok(
                  t <= Date.parse(e.at),
                  `${key} ran again after its completion was recorded`,
                );
            }
          }
          const executions = [...log.starts.values()].reduce((s, x) => s + x.length, 0);
          assert.equal(log.starts.size, recorded, "every execution belongs to a recorded step");
          // A step runs again only when the process that ran it before was killed before its
          // completion was recorded: in flight, or finished but not yet committed.
          const killed = new Set(victims);
          for (const [key, starts] of log.starts) {
            if (starts.length < 2) continue;
            const byVictim = [...log.startedBy].some(
              ([pid, keys]) => killed.has(pid) && keys.has(key),
            );
            assert.ok(byVictim, `${key} ran ${starts.length} times, none in a killed process`);
          }
          const caught = new Set(victims.flatMap((pid) => inFlight(log, pid)));
          const hits = victims.filter((pid) => inFlight(log, pid).length > 0).length;
          assert.ok(hits >= MIN_HITS, `only ${hits} of ${KILLS} kills caught a step in flight`);
          console.log(
            `# ${b.name}: ${RUNS} processes, ${KILLS} kill -9 (${hits} caught ${caught.size} steps in flight); ${recorded} recorded steps, ${executions} executions, ${rerun} ran twice, none after being recorded; ${completedTasks} completions answered; kills over at ${killsDone} s, all ended at ${allEnded} s`,
          );
        } finally {
          await Promise.race([tasks.stop(), sleep(5_000)]);
          cluster.stop();
          await db.drop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

for (const b of backends) suite(b);
