/**
 * `npm run bench -- load [sqlite|postgres|mysql]` (issue 8, finding 3): how a
 * node serves NEW connections while 200 keep-alive connections keep it busy.
 * Per backend: the server in its own process (production mode, default
 * shedding limits), a hammer process with 200 connections on POST
 * /v1/processes for LOAD_SECONDS, and — after a warm-up — PROBERS loops that
 * each open a fresh connection for GET /healthz, one after another. Prints
 * fresh connections answered per second (each needs an accept, and Node 20
 * accepts one connection per event-loop iteration), their latency, and what
 * the hammer got.
 *
 * BENCH_LOAD_SECONDS overrides 15.
 */
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { backends, createTestDatabase, unavailableReason } from "../test/support/backends.ts";
import { hammer, type HammerResult } from "../test/support/hammer.ts";
import { startServer } from "../test/support/server-process.ts";
import { printTable, writeResults } from "./lib/results.ts";
import { percentile, round } from "./lib/stats.ts";

const KEY = "bench-key-0123456789abcdefghijkl";
const CONNECTIONS = 200;
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 15);
const WARMUP_MS = 4_000;
const PROBERS = 8;
/** A probe that takes longer is counted as failed; the bench stays bounded. */
const PROBE_TIMEOUT_MS = 30_000;

interface LoadResult {
  backend: string;
  freshPerSecond: number;
  healthP50: number;
  healthP99: number;
  healthMax: number;
  probes: number;
  probeErrors: number;
  hammer: HammerResult;
  hammerPerSecond: number;
}

function freshHealth(port: number): Promise<number | null> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port, path: "/healthz", agent: false, timeout: PROBE_TIMEOUT_MS },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode === 200 ? performance.now() - t0 : null));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(null));
  });
}

async function probe(port: number, untilMs: number) {
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PROBERS }, async () => {
      while (performance.now() < untilMs) {
        const ms = await freshHealth(port);
        if (ms === null) errors++;
        else latencies.push(ms);
      }
    }),
  );
  return { latencies, errors, seconds: (performance.now() - t0) / 1000 };
}

async function benchBackend(name: "sqlite" | "postgres" | "mysql"): Promise<LoadResult> {
  const db = await createTestDatabase({ name });
  const server = await startServer({
    DATABASE_URL: db.url,
    NODE_ENV: "production",
    WF_API_KEYS: KEY,
    LOG_LEVEL: "warn",
  });
  try {
    const start = performance.now();
    const load = hammer(server.port, KEY, CONNECTIONS, LOAD_SECONDS);
    await sleep(WARMUP_MS);
    const p = await probe(server.port, start + LOAD_SECONDS * 1000 - 1000);
    const h = await load;
    const sorted = [...p.latencies].sort((a, b) => a - b);
    const answered = Object.entries(h.statuses)
      .filter(([k]) => /^[0-9]+$/.test(k))
      .reduce((n, [, v]) => n + v, 0);
    return {
      backend: name,
      freshPerSecond: round(p.latencies.length / p.seconds, 1),
      healthP50: round(percentile(sorted, 50), 0),
      healthP99: round(percentile(sorted, 99), 0),
      healthMax: round(sorted.at(-1) ?? NaN, 0),
      probes: p.latencies.length,
      probeErrors: p.errors,
      hammer: h,
      hammerPerSecond: round(answered / LOAD_SECONDS, 0),
    };
  } finally {
    await server.stop();
    await db.drop();
  }
}

export async function run(args: string[]) {
  const only = args.filter((a) => !a.startsWith("-"));
  const results: LoadResult[] = [];
  for (const b of backends.filter((x) => only.length === 0 || only.includes(x.name))) {
    const why = await unavailableReason(b);
    if (why) {
      console.log(`skipping ${b.name}: ${why}`);
      continue;
    }
    console.log(`load on ${b.name} …`);
    results.push(await benchBackend(b.name));
  }
  console.log(
    `\nFresh-connection GET /healthz (${PROBERS} probers) under ${CONNECTIONS} busy keep-alive connections on POST /v1/processes`,
  );
  printTable(
    results.map((r) => ({
      backend: r.backend,
      "fresh conns/s": r.freshPerSecond,
      "health p50 ms": r.healthP50,
      "health p99 ms": r.healthP99,
      "health max ms": r.healthMax,
      probes: r.probes,
      "probe errors": r.probeErrors,
      "hammer answers/s": r.hammerPerSecond,
      "hammer statuses": JSON.stringify(r.hammer.statuses),
    })),
  );
  const file = writeResults("load", {
    config: { connections: CONNECTIONS, loadSeconds: LOAD_SECONDS, probers: PROBERS },
    results,
  });
  console.log(`\nwritten ${file}`);
}
