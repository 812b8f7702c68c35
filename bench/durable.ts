/**
 * `npm run bench -- durable`: a 3-step workflow of trivial steps
 * on TaskFlow/PostgreSQL, TaskFlow/SQLite (synchronous=NORMAL, the default, and
 * FULL) and DBOS (same PostgreSQL server, its own fresh database),
 * all embedded in this process. Per engine, after a
 * warm-up: 500 runs one after another (start, wait for completion, next) and
 * 2,000 runs with 32 in flight — workflows/s, steps/s, p50/p99 of start →
 * completed. Also the raw single-row-insert ceiling of the same PostgreSQL at 1
 * and 32 connections and of better-sqlite3, measured in the same run, so every
 * figure is a ratio too, and the SQL statements each engine issues per workflow.
 *
 *   npm run bench -- durable                 # everything
 *   npm run bench -- durable postgres dbos   # only those engines (sqlite | postgres | dbos)
 *   npm run bench -- durable sqlite          # SQLite NORMAL and FULL (sqlite-full alone: only FULL)
 *   npm run bench -- durable --no-raw        # skip the raw ceilings (profiling)
 *   npm run bench -- durable --sql           # also print the costliest statements
 *
 * BENCH_DURABLE_SEQ / BENCH_DURABLE_RUNS / BENCH_DURABLE_CONCURRENCY /
 * BENCH_RAW_SECONDS override 500 / 2,000 / 32 / 3.
 */
import os from "node:os";
import { createTestDatabase, unavailableReason } from "../test/support/backends.ts";
import { dbosEngine } from "./lib/dbos-engine.ts";
import { STEPS_PER_WORKFLOW, type DurableEngine } from "./lib/durable-engine.ts";
import {
  countStatements,
  installStatementCounter,
  statementsIssued,
  type StatementCount,
} from "./lib/durable-statements.ts";
import { PgBackendCpu } from "./lib/durable-pg-cpu.ts";
import { taskflowEngine } from "./lib/durable-taskflow.ts";
import { rawInsertCeiling } from "./lib/raw-ceiling.ts";
import { printTable, writeResults } from "./lib/results.ts";
import { runConcurrent } from "./lib/run-concurrent.ts";
import { round, summarize, type Summary } from "./lib/stats.ts";

const SEQ_RUNS = Number(process.env.BENCH_DURABLE_SEQ ?? 500);
const CONC_RUNS = Number(process.env.BENCH_DURABLE_RUNS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_DURABLE_CONCURRENCY ?? 32);
const RAW_SECONDS = Number(process.env.BENCH_RAW_SECONDS ?? 3);
/** Hard cap per timed phase: the bench stops by itself even if an engine stalls. */
const PHASE_MAX_SECONDS = 60;
const WARMUP = { concurrency: 8, runs: 300, sequential: 50 };
const COUNTED_RUNS = 50;

type EngineName = "sqlite" | "sqlite-full" | "postgres" | "dbos";
const ENGINES: EngineName[] = ["sqlite", "sqlite-full", "postgres", "dbos"];
const isSqlite = (e: EngineName) => e === "sqlite" || e === "sqlite-full";

interface PhaseResult {
  engine: string;
  backend: "postgres" | "sqlite";
  concurrency: number;
  workflows: Summary;
  /** Slowest run (ms): a run dropped as lost shows here as a lease expiry (≈ 5 s). */
  maxMs: number;
  stepsPerSecond: number;
  /** CPU of this process (user + system, incl. the in-process SQLite or the pg client) per workflow. */
  cpuMsPerWorkflow: number;
  /** CPU of the PostgreSQL backends serving the engine's database, per workflow (same machine). */
  pgCpuMsPerWorkflow: number | null;
  /** SQL statements this process issued per workflow in the phase (batching shows here). */
  statementsPerWorkflow: number;
  errors: number;
  firstError?: string;
  /** Runs the worker dropped as "lost" (lease looked lost) and finished only after lease expiry. */
  lost: number;
  /** The raw insert ceiling this phase is compared with (same backend, same connection count). */
  rawInsertsPerSecond: number | null;
  stepsOverRaw: number | null;
}

interface Raw {
  postgres: Record<number, number>;
  sqlite: number | null;
}

async function measureRaw(pgUrl: string | null, sqliteUrl: string | null): Promise<Raw> {
  const raw: Raw = { postgres: {}, sqlite: null };
  if (pgUrl) {
    for (const c of [1, CONCURRENCY]) {
      console.log(`raw insert ceiling: postgres, ${c} connection(s) …`);
      raw.postgres[c] = await rawInsertCeiling(pgUrl, c, RAW_SECONDS);
    }
  }
  if (sqliteUrl) {
    console.log("raw insert ceiling: better-sqlite3 …");
    raw.sqlite = await rawInsertCeiling(sqliteUrl, 1, RAW_SECONDS);
  }
  return raw;
}

async function benchEngine(
  engine: DurableEngine,
  url: string,
  raw: Raw,
): Promise<{ phases: PhaseResult[]; statements: StatementCount }> {
  let next = 0;
  const op = (i: number) => engine.runOne(next + i);
  const advance = (n: number) => (next += n);

  // Warm-up: JIT, pools and their prepared statements, caches.
  const w = await runConcurrent(WARMUP.concurrency, WARMUP.runs, 30, op);
  advance(WARMUP.runs);
  await runConcurrent(1, WARMUP.sequential, 30, op);
  advance(WARMUP.sequential);
  if (w.firstError) throw new Error(`${engine.name} warm-up failed`, { cause: w.firstError });
  await engine.verify();

  const pgCpu = engine.backend === "postgres" ? await PgBackendCpu.open(url) : undefined;
  const phases: PhaseResult[] = [];
  for (const [c, total] of [
    [1, SEQ_RUNS],
    [CONCURRENCY, CONC_RUNS],
  ] as const) {
    const lost0 = engine.lostOutcomes?.() ?? 0;
    const pg0 = await pgCpu?.sample();
    const cpu0 = process.cpuUsage();
    const stmts0 = statementsIssued();
    const r = await runConcurrent(c, total, PHASE_MAX_SECONDS, op);
    const cpu = process.cpuUsage(cpu0);
    const stmts = statementsIssued() - stmts0;
    const pgMs = PgBackendCpu.delta(pg0, await pgCpu?.sample());
    advance(total);
    await engine.verify();
    if (r.firstError) console.error(`  ${engine.name} c=${c}: first error:`, r.firstError);
    const workflows = summarize(r.latencies, r.seconds);
    const stepsPerSecond = round(workflows.perSecond * STEPS_PER_WORKFLOW, 0);
    const rawIps = engine.backend === "sqlite" ? raw.sqlite : (raw.postgres[c] ?? null);
    phases.push({
      engine: engine.name,
      backend: engine.backend,
      concurrency: c,
      workflows,
      maxMs: round(Math.max(0, ...r.latencies), 1),
      stepsPerSecond,
      cpuMsPerWorkflow: round((cpu.user + cpu.system) / 1000 / Math.max(1, r.latencies.length), 3),
      pgCpuMsPerWorkflow:
        pgMs === undefined ? null : round(pgMs / Math.max(1, r.latencies.length), 3),
      statementsPerWorkflow: round(stmts / Math.max(1, r.latencies.length), 2),
      errors: r.errors,
      lost: (engine.lostOutcomes?.() ?? 0) - lost0,
      ...(r.firstError
        ? { firstError: r.firstError instanceof Error ? r.firstError.message : "error" }
        : {}),
      rawInsertsPerSecond: rawIps,
      stepsOverRaw: rawIps ? round(stepsPerSecond / rawIps, 3) : null,
    });
  }
  await pgCpu?.close();
  const statements = await countStatements(COUNTED_RUNS, (i) => engine.runOne(next + i), 0);
  return { phases, statements };
}

async function start(name: EngineName, url: string): Promise<DurableEngine> {
  if (name === "dbos") return dbosEngine(url);
  if (name === "sqlite-full") return taskflowEngine(url, "sqlite", "full");
  return taskflowEngine(url, name);
}

const pct = (x: number | null) => (x === null ? "" : `${round(x * 100, 1)} %`);
const times = (x: number | null) => (x === null || !Number.isFinite(x) ? "" : `${round(x, 2)}×`);

export async function run(args: string[]) {
  installStatementCounter(); // before any pool connects
  const only = args.filter((a) => !a.startsWith("-")) as EngineName[];
  // "sqlite" selects both synchronous modes, so the bench prints the trade side by side.
  const wanted = ENGINES.filter(
    (e) =>
      only.length === 0 || only.includes(e) || (e === "sqlite-full" && only.includes("sqlite")),
  );
  const noRaw = args.includes("--no-raw");
  const pgWhy = await unavailableReason({ name: "postgres" });
  const engines = wanted.filter((e) => {
    if (!isSqlite(e) && pgWhy) console.log(`skipping ${e}: ${pgWhy}`);
    return isSqlite(e) || !pgWhy;
  });

  const drops: (() => Promise<void>)[] = [];
  const fresh = async (name: "postgres" | "sqlite") => {
    const db = await createTestDatabase({ name });
    drops.push(() => db.drop());
    return db.url;
  };
  const phases: PhaseResult[] = [];
  const statements: Record<string, StatementCount> = {};
  let raw: Raw = { postgres: {}, sqlite: null };
  const startedAt = performance.now();
  const loadAtStart = os.loadavg().map((x) => round(x, 2));
  try {
    if (!noRaw) {
      const usesPg = engines.some((e) => !isSqlite(e));
      raw = await measureRaw(
        usesPg ? await fresh("postgres") : null,
        engines.some(isSqlite) ? await fresh("sqlite") : null,
      );
    }
    for (const name of engines) {
      const url = await fresh(isSqlite(name) ? "sqlite" : "postgres");
      console.log(`${name} …`);
      const engine = await start(name, url);
      try {
        const r = await benchEngine(engine, url, raw);
        phases.push(...r.phases);
        statements[engine.name] = r.statements;
      } finally {
        await engine.close();
      }
    }
  } finally {
    for (const d of drops) await d().catch((e: unknown) => console.error("drop failed:", e));
  }
  const wallSeconds = round((performance.now() - startedAt) / 1000, 1);
  const loadAverage = os.loadavg().map((x) => round(x, 2));

  const dbosAt = (c: number) =>
    phases.find((p) => p.engine === "dbos" && p.concurrency === c)?.workflows.perSecond ?? null;
  console.log(
    `\nDurable: 3-step workflow of trivial steps, start → completed; ${SEQ_RUNS} runs sequential, ${CONC_RUNS} with ${CONCURRENCY} in flight`,
  );
  printTable(
    phases.map((p) => {
      const d = dbosAt(p.concurrency);
      return {
        engine: p.engine,
        c: p.concurrency,
        "wf/s": p.workflows.perSecond,
        "steps/s": p.stepsPerSecond,
        "p50 ms": p.workflows.p50,
        "p99 ms": p.workflows.p99,
        "max ms": p.maxMs,
        "cpu ms/wf": p.cpuMsPerWorkflow,
        "pg cpu ms/wf": p.pgCpuMsPerWorkflow ?? "",
        "stmts/wf": p.statementsPerWorkflow,
        runs: p.workflows.count,
        errors: p.errors,
        lost: p.lost,
        "raw ins/s": p.rawInsertsPerSecond ?? "",
        "steps/raw": pct(p.stepsOverRaw),
        "÷ DBOS": p.backend === "postgres" && d ? times(p.workflows.perSecond / d) : "",
      };
    }),
  );
  if (!noRaw) {
    console.log("\nRaw single-row INSERT ceiling (autocommit), same run");
    printTable([
      ...Object.entries(raw.postgres).map(([c, v]) => ({
        database: "postgres",
        connections: c,
        "inserts/s": v,
      })),
      ...(raw.sqlite === null
        ? []
        : [{ database: "better-sqlite3", connections: "1", "inserts/s": raw.sqlite }]),
    ]);
  }
  console.log(`\nSQL statements per workflow (${COUNTED_RUNS} sequential runs, client-side count)`);
  printTable(
    Object.entries(statements).map(([engine, s]) => ({
      engine,
      "stmts/wf": s.perWorkflow,
      breakdown: Object.entries(s.byVerb)
        .map(([k, v]) => `${k} ${v}`)
        .join(", "),
    })),
  );

  if (args.includes("--sql")) {
    for (const [engine, s] of Object.entries(statements)) {
      console.log(`\n${engine}: statements by time (per workflow)`);
      printTable(
        s.top.map((t) => ({ ms: t.msPerWorkflow, n: t.perWorkflow, sql: t.sql.slice(0, 110) })),
      );
    }
  }

  const targets = evaluateTargets(phases);
  if (targets.length > 0) {
    console.log("\nTargets");
    printTable(targets.map((t) => ({ ...t, met: t.met ? "yes" : "NO" })));
  }
  console.log(
    `\nwall time ${wallSeconds} s; load average at start ${loadAtStart.join(" ")}, at end ${loadAverage.join(" ")} (${os.cpus().length} CPUs, shared)`,
  );
  const file = writeResults("durable", {
    config: {
      sequentialRuns: SEQ_RUNS,
      concurrentRuns: CONC_RUNS,
      concurrency: CONCURRENCY,
      rawSeconds: RAW_SECONDS,
      warmup: WARMUP,
      stepsPerWorkflow: STEPS_PER_WORKFLOW,
    },
    rawInsertCeiling: raw,
    phases,
    statements,
    targets,
    wallSeconds,
    loadAverage: { atStart: loadAtStart, atEnd: loadAverage },
  });
  console.log(`written ${file}`);
}

interface Target {
  target: string;
  value: string;
  met: boolean;
}

function evaluateTargets(phases: PhaseResult[]): Target[] {
  const at = (engine: string, c: number) =>
    phases.find((p) => p.engine === engine && p.concurrency === c);
  const out: Target[] = [];
  const pgC = at("taskflow-postgres", CONCURRENCY);
  const dbosC = at("dbos", CONCURRENCY);
  if (pgC && dbosC) {
    const r = pgC.workflows.perSecond / dbosC.workflows.perSecond;
    out.push({ target: `PG wf/s ≥ 4× DBOS (c=${CONCURRENCY})`, value: times(r), met: r >= 4 });
  }
  if (pgC?.stepsOverRaw != null) {
    out.push({
      target: `PG steps/s ≥ 40 % raw (c=${CONCURRENCY})`,
      value: pct(pgC.stepsOverRaw),
      met: pgC.stepsOverRaw >= 0.4,
    });
  }
  for (const engine of ["taskflow-postgres", "taskflow-sqlite", "taskflow-sqlite-full"]) {
    const s = at(engine, 1);
    if (s) {
      out.push({
        target: `${engine} sequential p50 ≤ 2 ms`,
        value: `${s.workflows.p50} ms`,
        met: s.workflows.p50 <= 2,
      });
    }
  }
  const sq = at("taskflow-sqlite", CONCURRENCY);
  if (sq) {
    out.push({
      target: `SQLite ≥ 5,000 wf/s (c=${CONCURRENCY})`,
      value: `${sq.workflows.perSecond}`,
      met: sq.workflows.perSecond >= 5000,
    });
  }
  return out;
}
