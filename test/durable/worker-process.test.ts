/**
 * Real processes: `taskflow worker --workflows` on every backend, killed with
 * SIGKILL at random moments while runs are in flight. Every run must complete,
 * and a step may run again only if it was in flight when its worker died.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createStore } from "../../src/adapters/store/create-store.ts";
import type { SqlStore } from "../../src/adapters/store/sql-store.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import * as flows from "./support/flows.ts";

const RUNS = Number(process.env.TF_CRASH_RUNS ?? 200);
const KILLS = Number(process.env.TF_CRASH_KILLS ?? 20);

function startWorker(url: string, stepLog: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["bin/taskflow.js", "worker", "--workflows", "test/durable/support/flows.ts"],
    {
      env: { ...process.env, DATABASE_URL: url, TF_STEP_LOG: stepLog, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.stdout.on("data", (d: Buffer) => {
      if (d.toString().includes("worker")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function suite(b: Backend) {
  describe(`worker processes on ${b.name}`, async () => {
    const options = await backendTestOptions(b);
    it(
      `${KILLS} kill -9 of workers while ${RUNS} five-step runs are in flight: all complete`,
      options,
      async () => {
        const db = await createTestDatabase(b);
        const dir = mkdtempSync(join(tmpdir(), "tf-crash-"));
        const stepLog = join(dir, "steps.log");
        const store = createStore(db.url) as SqlStore;
        await store.migrate();
        const api = new DurableRuns(store.runStore(), new WorkflowRegistry([flows.fiveSteps]));
        const workers: ChildProcess[] = [];
        try {
          workers.push(await startWorker(db.url, stepLog), await startWorker(db.url, stepLog));
          // Runs keep arriving while workers are being killed, so kills hit work in flight.
          const perKill = Math.ceil(RUNS / KILLS);
          let started = 0;
          const startOne = () =>
            api.start("default", "five-steps", {
              id: `c${started}`,
              input: { n: started },
              startedBy: "t",
            });
          for (let kills = 0; kills < KILLS; kills++) {
            for (let j = 0; j < perKill && started < RUNS; j++, started++) await startOne();
            await sleep(100 + Math.random() * 200);
            const victim = workers.splice(Math.floor(Math.random() * workers.length), 1)[0]!;
            victim.kill("SIGKILL");
            workers.push(await startWorker(db.url, stepLog));
          }
          for (; started < RUNS; started++) await startOne();
          const deadline = Date.now() + 60_000;
          for (;;) {
            const page = await api.list("default", { status: "completed", limit: 500 });
            if (page.items.length === RUNS) break;
            assert.ok(Date.now() < deadline, `only ${page.items.length}/${RUNS} completed`);
            await sleep(200);
          }
          for (let i = 0; i < RUNS; i++) {
            const r = await api.get("default", `c${i}`);
            assert.equal(r.output, 5 * i + 10);
          }
          const lines = existsSync(stepLog) ? readFileSync(stepLog, "utf8").trim().split("\n") : [];
          const starts = new Map<string, number[]>();
          const ends = new Set<string>();
          for (const line of lines) {
            const [what, key, at] = line.split(" ");
            if (what === "start") starts.set(key!, [...(starts.get(key!) ?? []), Number(at)]);
            else ends.add(key!);
          }
          assert.equal(ends.size, RUNS * 5, "every step completed");
          // No step whose completion was recorded ran again: every start precedes its event's time.
          let rerun = 0;
          for (let i = 0; i < RUNS; i++) {
            for (const e of await api.history("default", `c${i}`)) {
              const s = starts.get(`c${i}:${e.seq}`) ?? [];
              if (s.length > 1) rerun++;
              for (const t of s)
                assert.ok(t <= e.at, `c${i}:${e.seq} started after it was recorded`);
            }
          }
          console.log(
            `# ${b.name}: ${RUNS} runs, ${KILLS} kill -9, all completed; ${rerun} steps ran twice (in flight at a kill), none after being recorded`,
          );
        } finally {
          for (const w of workers) w.kill("SIGKILL");
          await store.close();
          await db.drop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

for (const b of backends) suite(b);
