/**
 * The interpreter's cost: a 3-state definition (call, call, end) against the
 * same shape written as a code workflow (two ctx.step calls), on one embedded
 * TaskFlow per backend — same database, same worker, same step bodies — at 1
 * and 32 runs in flight. Each side runs in alternating rounds (code first in
 * odd rounds, interpreted first in even ones, so a drift of the machine hits
 * both) and the figure is the median of the rounds' runs/s.
 *
 *   npx tsx bench/definitions/interpreted-vs-code.ts                   # postgres
 *   npx tsx bench/definitions/interpreted-vs-code.ts sqlite mysql postgres
 *
 * BENCH_IVC_SEQ / BENCH_IVC_RUNS / BENCH_IVC_ROUNDS override 200 / 1,000 / 3
 * (runs at 1 in flight, at 32, rounds). Target: interpreted ≥ 70 % of code at
 * 32 in flight on PostgreSQL.
 */
import { pathToFileURL } from "node:url";
import { createTaskflow, loadConfig, registerStep, workflow, type Taskflow } from "taskflow";
import {
  createTestDatabase,
  unavailableReason,
  type Backend,
} from "../../test/support/backends.ts";
import { printTable, writeResults } from "../lib/results.ts";
import { runConcurrent } from "../lib/run-concurrent.ts";
import { median, round } from "../lib/stats.ts";

const TENANT = "bench";
const SEQ_RUNS = Number(process.env.BENCH_IVC_SEQ ?? 200);
const CONC_RUNS = Number(process.env.BENCH_IVC_RUNS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_IVC_ROUNDS ?? 3);
const CONCURRENCY = 32;
/** Hard cap per timed phase, so the bench stops by itself if a side stalls. */
const PHASE_MAX_SECONDS = 60;
const RUN_TIMEOUT_MS = 30_000;

/** The step bodies, shared by both sides so only the interpretation differs. */
const first = (i: number) => i + 1;
const second = (a: number) => a * 2;
const expected = (i: number) => (i + 1) * 2;

registerStep("bench-first", (input) => first((input as { i: number }).i));
registerStep("bench-second", (input) => second((input as { a: number }).a));

const codeWorkflow = workflow("bench-two-steps", async (ctx, input: { i: number }) => {
  const a = await ctx.step("first", () => first(input.i));
  return ctx.step("second", () => second(a));
});

const DEFINITION = {
  key: "bench-two-calls",
  name: "Bench: two calls",
  start: "first",
  states: {
    first: {
      type: "call",
      step: "bench-first",
      input: "{ 'i': vars.i }",
      resultVar: "a",
      next: "second",
    },
    second: {
      type: "call",
      step: "bench-second",
      input: "{ 'a': vars.a }",
      resultVar: "b",
      next: "done",
    },
    done: { type: "end" },
  },
};

export interface Side {
  /** Median runs/s over the rounds, and each round's. */
  runsPerSecond: number;
  rounds: number[];
  errors: number;
}

export interface InterpretedVsCodeRow {
  backend: Backend["name"];
  concurrency: number;
  code: Side;
  interpreted: Side;
  /** interpreted / code, of the medians. */
  ratio: number;
}

/** Settles when the worker reports a run's terminal outcome (tolerates the outcome coming first). */
class Completions {
  private readonly waiters = new Map<string, (outcome: string) => void>();
  private readonly early = new Map<string, string>();

  settle(runId: string, outcome: string): void {
    if (outcome === "lost") return; // taken over after the lease: its terminal outcome follows
    const w = this.waiters.get(runId);
    if (w === undefined) this.early.set(runId, outcome);
    else w(outcome);
  }

  async wait(runId: string): Promise<void> {
    const outcome =
      this.early.get(runId) ??
      (await new Promise<string>((resolve) => {
        const t = setTimeout(() => resolve("timeout"), RUN_TIMEOUT_MS);
        this.waiters.set(runId, (o) => (clearTimeout(t), resolve(o)));
      }));
    this.early.delete(runId);
    this.waiters.delete(runId);
    if (outcome !== "completed") throw new Error(`run ${runId}: ${outcome}`);
  }
}

interface Bench {
  tf: Taskflow;
  code(i: number): Promise<string>;
  interpreted(i: number): Promise<string>;
}

async function open(databaseUrl: string): Promise<Bench> {
  const completions = new Completions();
  const config = loadConfig({
    env: {},
    overrides: { databaseUrl, apiKeys: ["bench-key-0123456789abcdefghijkl"], logLevel: "silent" },
  });
  const tf = await createTaskflow(config, {
    workflows: [codeWorkflow],
    worker: {
      onOutcome: (run, outcome) =>
        completions.settle(run.id, outcome instanceof Error ? outcome.message : outcome),
    },
  });
  await tf.definitions.publish({ tenantId: TENANT, actorId: "bench" }, DEFINITION.key, DEFINITION);
  return {
    tf,
    async code(i) {
      const { run } = await tf.runs.start(TENANT, codeWorkflow, {
        input: { i },
        startedBy: "bench",
      });
      await completions.wait(run.id);
      return run.id;
    },
    async interpreted(i) {
      const { runId } = await tf.definitionRuns.start(
        { tenantId: TENANT, actorId: "bench" },
        { key: DEFINITION.key, vars: { i } },
      );
      await completions.wait(runId);
      return runId;
    },
  };
}

/** Outside the timed loops: a wrong output would make every figure meaningless. */
async function verify(b: Bench, side: "code" | "interpreted", runId: string, i: number) {
  const run = await b.tf.runs.get(TENANT, runId);
  const out = side === "code" ? run.output : (run.output as { vars: { b: unknown } }).vars.b;
  if (run.status !== "completed" || out !== expected(i))
    throw new Error(`${side} run ${runId}: ${run.status} ${JSON.stringify(run.output)}`);
}

async function phase(
  b: Bench,
  side: "code" | "interpreted",
  concurrency: number,
  total: number,
  from: number,
): Promise<{ perSecond: number; errors: number }> {
  let last: { id: string; i: number } | undefined;
  const r = await runConcurrent(concurrency, total, PHASE_MAX_SECONDS, async (k) => {
    const i = from + k;
    last = { id: await b[side](i), i };
  });
  if (r.firstError !== undefined) console.error(`  ${side} c=${concurrency}:`, r.firstError);
  if (last !== undefined) await verify(b, side, last.id, last.i);
  return { perSecond: r.latencies.length / r.seconds, errors: r.errors };
}

/** One backend: warm-up, then ROUNDS alternating rounds at 1 and at 32 in flight. */
export async function interpretedVsCode(
  backend: Backend["name"] = "postgres",
): Promise<InterpretedVsCodeRow[]> {
  const db = await createTestDatabase({ name: backend });
  const b = await open(db.url);
  let next = 0;
  try {
    for (const side of ["code", "interpreted"] as const) {
      await phase(b, side, 8, 200, next);
      next += 200;
    }
    const rows: InterpretedVsCodeRow[] = [];
    for (const [concurrency, total] of [
      [1, SEQ_RUNS],
      [CONCURRENCY, CONC_RUNS],
    ] as const) {
      const got = { code: [] as number[], interpreted: [] as number[] };
      const errors = { code: 0, interpreted: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const order =
          round % 2 === 0 ? (["code", "interpreted"] as const) : (["interpreted", "code"] as const);
        for (const side of order) {
          const r = await phase(b, side, concurrency, total, next);
          next += total;
          got[side].push(r.perSecond);
          errors[side] += r.errors;
        }
      }
      const side = (s: "code" | "interpreted"): Side => ({
        runsPerSecond: round(median(got[s]), 1),
        rounds: got[s].map((x) => round(x, 1)),
        errors: errors[s],
      });
      const code = side("code");
      const interpreted = side("interpreted");
      rows.push({
        backend,
        concurrency,
        code,
        interpreted,
        ratio: round(interpreted.runsPerSecond / code.runsPerSecond, 3),
      });
    }
    return rows;
  } finally {
    await b.tf.close();
    await db.drop();
  }
}

/** Run alone: the backends named on the command line (default PostgreSQL), a table, a JSON file. */
export async function run(args: string[]): Promise<InterpretedVsCodeRow[]> {
  const wanted = (args.length > 0 ? args : ["postgres"]) as Backend["name"][];
  const rows: InterpretedVsCodeRow[] = [];
  for (const backend of wanted) {
    const why = await unavailableReason({ name: backend });
    if (why !== null) {
      console.log(`skipping ${backend}: ${why}`);
      continue;
    }
    console.log(`interpreted vs code on ${backend} …`);
    rows.push(...(await interpretedVsCode(backend)));
  }
  printTable(
    rows.map((r) => ({
      backend: r.backend,
      "in flight": r.concurrency,
      "code runs/s": r.code.runsPerSecond,
      "interpreted runs/s": r.interpreted.runsPerSecond,
      ratio: `${round(r.ratio * 100, 1)} %`,
      "code rounds": r.code.rounds.join(" "),
      "interpreted rounds": r.interpreted.rounds.join(" "),
      errors: r.code.errors + r.interpreted.errors,
    })),
  );
  console.log(`results: ${writeResults("definitions-interpreted-vs-code", rows)}`);
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await run(process.argv.slice(2));
  process.exit(0);
}
