/**
 * Real processes: `taskflow worker --workflows` on PostgreSQL and MariaDB, killed with
 * SIGKILL at random moments while runs are in flight. Every run must complete,
 * and a step may run again only if it was in flight when its worker died.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { openDatabase } from "../../src/adapters/store/open-database.ts";
import { WorkflowRegistry } from "../../src/engine/durable/registry.ts";
import { DurableRuns } from "../../src/engine/durable/runs-api.ts";
import {
  backendTestOptions,
  backends,
  createTestDatabase,
  type Backend,
} from "../support/backends.ts";
import * as flows from "./support/flows.ts";
import { inFlight, readStepLog } from "./support/process-step-log.ts";

/**
 * The knobs can make a soak run bigger, never smaller than the defaults: fewer
 * kills or runs would weaken what the assertions below prove (down to nothing
 * with 0), and a green run must mean what the test's name says.
 */
function knob(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < fallback) {
    throw new Error(`${name}=${raw}: must be an integer of at least ${fallback}`);
  }
  return n;
}

const RUNS = knob("TF_CRASH_RUNS", 200);
const KILLS = knob("TF_CRASH_KILLS", 20);
/**
 * How many kills must catch a step in flight. The victim is picked among the
 * workers running a step at that moment (see the kill loop), so nearly every kill
 * does; half leaves room for a loaded machine where a step ends in between.
 */
const MIN_HITS = Math.ceil(KILLS / 2);

/** How the worker loads flows.ts: "taskflow" is the built package, as in an application. */
const WORKER_TSCONFIG = fileURLToPath(new URL("./support/worker-tsconfig.json", import.meta.url));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The worker processes of one test. Every exit is expected only if this test
 * killed that worker: a worker that dies by itself would otherwise go unnoticed,
 * since the others take over its runs and everything still completes.
 */
class Fleet {
  readonly live: ChildProcess[] = [];
  readonly unexpectedExits: string[] = [];
  private readonly killedByUs = new Set<ChildProcess>();

  constructor(
    private readonly url: string,
    private readonly stepLog: string,
  ) {}

  async add(): Promise<void> {
    const child = spawn(
      process.execPath,
      ["bin/taskflow.js", "worker", "--workflows", "test/durable/support/flows.ts"],
      {
        env: {
          ...process.env,
          DATABASE_URL: this.url,
          TF_STEP_LOG: this.stepLog,
          NODE_ENV: "production",
          TSX_TSCONFIG_PATH: WORKER_TSCONFIG,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("worker")) resolve();
      });
      child.on("exit", (code, signal) => {
        const why = `worker ${child.pid} exited by itself (code ${code}, signal ${signal}): ${err}`;
        reject(new Error(why)); // a no-op once it is running
        if (!this.killedByUs.has(child)) this.unexpectedExits.push(why);
      });
    });
    this.live.push(child);
  }

  /** kill -9 of a random live worker, one that `busy` says yes to if any; its pid, once it is gone. */
  async killOne(busy: (pid: number) => boolean): Promise<number> {
    const busyOnes = this.live.filter((w) => busy(w.pid!));
    const pool = busyOnes.length > 0 ? busyOnes : this.live;
    const victim = pool[Math.floor(Math.random() * pool.length)]!;
    this.live.splice(this.live.indexOf(victim), 1);
    // Already gone means it died by itself: no exit event would come for the wait below.
    if (victim.exitCode !== null || victim.signalCode !== null) this.assertNoUnexpectedExit();
    this.killedByUs.add(victim);
    const gone = new Promise<NodeJS.Signals | null>((r) =>
      victim.once("exit", (_code, signal) => r(signal)),
    );
    victim.kill("SIGKILL");
    const signal = await Promise.race([gone, sleep(5_000).then(() => "still running")]);
    assert.equal(signal, "SIGKILL", `worker ${victim.pid} was not killed by SIGKILL`);
    return victim.pid!;
  }

  killAll(): void {
    for (const w of this.live.splice(0)) {
      this.killedByUs.add(w);
      w.kill("SIGKILL");
    }
  }

  assertNoUnexpectedExit(): void {
    assert.deepEqual(this.unexpectedExits, [], "a worker died without being killed");
  }
}

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
        const store = openDatabase(db.url);
        await store.migrate();
        const api = new DurableRuns(store.runs, new WorkflowRegistry([flows.fiveSteps]));
        const fleet = new Fleet(db.url, stepLog);
        const victims: number[] = [];
        let aimedMs = 0;
        try {
          await fleet.add();
          await fleet.add();
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
            // A kill that catches no step in flight proves nothing about recovery: aim at
            // a worker running a step, waiting for one if need be (for at most about a
            // lease, after which a killed worker's runs are taken over and run again).
            let busy: number[] = [];
            const aimFrom = Date.now();
            for (const until = Date.now() + 6_000; Date.now() < until; await sleep(10)) {
              const log = readStepLog(stepLog);
              busy = fleet.live.map((w) => w.pid!).filter((pid) => inFlight(log, pid).length > 0);
              if (busy.length > 0) break;
            }
            aimedMs += Date.now() - aimFrom;
            fleet.assertNoUnexpectedExit();
            victims.push(await fleet.killOne((pid) => busy.includes(pid)));
            await fleet.add();
          }
          for (; started < RUNS; started++) await startOne();
          const deadline = Date.now() + 60_000;
          for (;;) {
            fleet.assertNoUnexpectedExit();
            const page = await api.list("default", { status: "completed", limit: 500 });
            if (page.items.length === RUNS) break;
            assert.ok(Date.now() < deadline, `only ${page.items.length}/${RUNS} completed`);
            await sleep(200);
          }
          fleet.assertNoUnexpectedExit();
          for (let i = 0; i < RUNS; i++) {
            const r = await api.get("default", `c${i}`);
            assert.equal(r.output, 5 * i + 10);
          }
          const log = readStepLog(stepLog);
          const { starts, ends } = log;
          assert.equal(ends.size, RUNS * 5, "every step completed");
          // A step a victim started and never finished was in flight when it was killed:
          // its event cannot have been recorded (that happens after the step returns),
          // so it must have run again elsewhere.
          const caught = new Set<string>(); // a step can be caught by more than one kill
          let hits = 0;
          for (const pid of victims) {
            const steps = inFlight(log, pid);
            if (steps.length > 0) hits++;
            steps.forEach((k) => caught.add(k));
            for (const k of steps) {
              assert.ok(
                (starts.get(k) ?? []).length >= 2,
                `${k}, in flight at a kill, never ran again`,
              );
            }
          }
          assert.ok(
            hits >= MIN_HITS,
            `only ${hits} of ${KILLS} kills caught a step in flight (at least ${MIN_HITS} must)`,
          );
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
            `# ${b.name}: ${RUNS} runs, ${KILLS} kill -9 (${hits} caught ${caught.size} steps in flight; ${aimedMs} ms spent waiting for a busy worker), all completed; ${rerun} steps ran twice, none after being recorded`,
          );
        } finally {
          fleet.killAll();
          await store.close();
          await db.drop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    );
  });
}

// Not on SQLite: one process per SQLite file (dialects/sqlite/process-lock.ts), and this test
// needs several workers and itself on one database. A kill -9 on SQLite is the chaos suite's
// node-kill (one node, restarted) and test/store/sqlite-process-lock.test.ts.
for (const b of backends.filter((x) => x.name !== "sqlite")) suite(b);
