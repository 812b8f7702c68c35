/**
 * The REST cycle against its ceiling (part of `npm run bench -- tasks`): the
 * same load generator (bench/lib/task-cycle.ts, five requests per cycle)
 * against `taskflow serve` on PostgreSQL and against a minimal Fastify + `pg`
 * server whose every request is one single-row INSERT
 * (bench/lib/minimal-server.ts), each in its own process and on its own fresh
 * database.
 *
 * On this machine the load generator, the server and PostgreSQL share two
 * cores, so cycles/s alone hides what the engine costs; CPU milliseconds per
 * cycle (bench/lib/proc-cpu.ts: the server process, and PostgreSQL's backends
 * of that database plus the cluster's background processes) is what decides
 * throughput on a machine with cores to spare.
 *
 * Rounds are interleaved (minimal, taskflow, minimal, taskflow, … at each
 * in-flight level) after a warm-up, and the table shows medians over rounds.
 * BENCH_CEILING_ROUNDS (default 3) and BENCH_CEILING_SECONDS (per window,
 * default 4) size the run; BENCH_CEILING_BASELINE=<dir> adds `taskflow serve`
 * from another checkout of the repository (e.g. the commit before a change) to
 * every round, for before/after figures measured in the same run.
 */
import { fileURLToPath } from "node:url";
import { createTestDatabase } from "../test/support/backends.ts";
import { JsonClient } from "./lib/http-client.ts";
import { cpuDelta, PgCpu, processCpuMs } from "./lib/proc-cpu.ts";
import { printTable } from "./lib/results.ts";
import { runConcurrent } from "./lib/run-concurrent.ts";
import { startServerChild, type ServerChild } from "./lib/server-child.ts";
import { median, round } from "./lib/stats.ts";
import { API_KEY, cycle } from "./lib/task-cycle.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const IN_FLIGHT = [1, 32];

interface Engine {
  name: string;
  server: ServerChild;
  client: JsonClient;
  pgCpu: PgCpu;
  drop(): Promise<void>;
}

/** One measured window of one engine at one in-flight level. */
export interface CeilingWindow {
  cycles: number;
  seconds: number;
  errors: number;
  cyclesPerSecond: number;
  /** CPU ms per cycle. */
  serverMs: number;
  pgMs: number;
  totalMs: number;
  loadGeneratorMs: number;
}

export interface CeilingRow {
  engine: string;
  inFlight: number;
  /** Medians over the rounds. */
  median: Omit<CeilingWindow, "cycles" | "seconds" | "errors">;
  rounds: CeilingWindow[];
}

async function startEngine(
  name: string,
  cwd: string,
  args: string[],
  env: Record<string, string>,
): Promise<Engine> {
  const db = await createTestDatabase({ name: "postgres" });
  try {
    const server = await startServerChild(cwd, args, { DATABASE_URL: db.url, ...env });
    const client = new JsonClient("127.0.0.1", server.port, { "x-api-key": API_KEY });
    const pgCpu = await PgCpu.open(db.url);
    return { name, server, client, pgCpu, drop: () => db.drop() };
  } catch (e) {
    await db.drop();
    throw e;
  }
}

const taskflowEnv = {
  NODE_ENV: "production",
  WF_API_KEYS: API_KEY,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
};

async function measure(e: Engine, inFlight: number, seconds: number): Promise<CeilingWindow> {
  const s0 = processCpuMs(e.server.pid);
  const p0 = await e.pgCpu.sample();
  const l0 = process.cpuUsage();
  const r = await runConcurrent(inFlight, 1e9, seconds, (i) => cycle(e.client, i));
  const l1 = process.cpuUsage(l0);
  const p1 = await e.pgCpu.sample();
  const s1 = processCpuMs(e.server.pid);
  if (r.firstError) console.error(`  ${e.name} ×${inFlight}: first error:`, r.firstError);
  if (s0 === undefined || s1 === undefined) throw new Error(`cannot read /proc for ${e.name}`);
  const n = Math.max(1, r.latencies.length);
  const serverMs = (s1 - s0) / n;
  const pgMs = cpuDelta(p0, p1) / n;
  return {
    cycles: r.latencies.length,
    seconds: round(r.seconds, 3),
    errors: r.errors,
    cyclesPerSecond: round(r.latencies.length / r.seconds, 1),
    serverMs: round(serverMs, 3),
    pgMs: round(pgMs, 3),
    totalMs: round(serverMs + pgMs, 3),
    loadGeneratorMs: round((l1.user + l1.system) / 1000 / n, 3),
  };
}

export async function benchRestCeiling(): Promise<CeilingRow[]> {
  const rounds = Number(process.env.BENCH_CEILING_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_CEILING_SECONDS ?? 4);
  const baseline = process.env.BENCH_CEILING_BASELINE;
  const engines: Engine[] = [];
  try {
    engines.push(await startEngine("minimal", ROOT, ["bench/lib/minimal-server.ts"], {}));
    engines.push(await startEngine("taskflow", ROOT, ["src/cli/main.ts", "serve"], taskflowEnv));
    if (baseline) {
      engines.push(
        await startEngine("taskflow@baseline", baseline, ["src/cli/main.ts", "serve"], taskflowEnv),
      );
    }
    // Warm-up: JIT, pools, plans, and TaskFlow's statistics keeper's first ANALYZE.
    for (const e of engines) await runConcurrent(8, 400, 15, (i) => cycle(e.client, i));
    const windows = new Map<string, CeilingWindow[]>();
    for (let r = 0; r < rounds; r++) {
      for (const inFlight of IN_FLIGHT) {
        for (const e of engines) {
          const w = await measure(e, inFlight, seconds);
          const key = `${e.name}|${inFlight}`;
          windows.set(key, [...(windows.get(key) ?? []), w]);
          console.log(
            `  round ${r + 1} ${e.name} ×${inFlight}: ${w.cyclesPerSecond} cycles/s, ` +
              `server ${w.serverMs} + PostgreSQL ${w.pgMs} ms CPU per cycle`,
          );
        }
      }
    }
    const rows: CeilingRow[] = [];
    for (const inFlight of IN_FLIGHT) {
      for (const e of engines) {
        const ws = windows.get(`${e.name}|${inFlight}`) ?? [];
        const med = (f: (w: CeilingWindow) => number, d = 3) => round(median(ws.map(f)), d);
        rows.push({
          engine: e.name,
          inFlight,
          median: {
            cyclesPerSecond: med((w) => w.cyclesPerSecond, 1),
            serverMs: med((w) => w.serverMs),
            pgMs: med((w) => w.pgMs),
            totalMs: med((w) => w.totalMs),
            loadGeneratorMs: med((w) => w.loadGeneratorMs),
          },
          rounds: ws,
        });
      }
    }
    return rows;
  } finally {
    for (const e of engines) {
      e.client.close();
      await e.pgCpu.close();
      await e.server.stop();
      await e.drop();
    }
  }
}

export function printCeiling(rows: CeilingRow[]) {
  const minimal = (c: number) => rows.find((r) => r.engine === "minimal" && r.inFlight === c);
  const times = (a: number, b: number | undefined) => (b ? `${round(a / b, 2)}×` : "");
  printTable(
    rows.map((r) => {
      const m = minimal(r.inFlight)?.median;
      return {
        engine: r.engine,
        "in flight": r.inFlight,
        "cycles/s": r.median.cyclesPerSecond,
        "server ms": r.median.serverMs,
        "PostgreSQL ms": r.median.pgMs,
        "total ms": r.median.totalMs,
        "÷ minimal": r.engine === "minimal" ? "" : times(r.median.totalMs, m?.totalMs),
        "server ÷": r.engine === "minimal" ? "" : times(r.median.serverMs, m?.serverMs),
        "PG ÷": r.engine === "minimal" ? "" : times(r.median.pgMs, m?.pgMs),
        "load gen ms": r.median.loadGeneratorMs,
      };
    }),
  );
}
