/**
 * `npm run bench -- coordination`: the coordination primitives on each
 * backend — lock acquire + release, counter consumes, cache sets and gets — at
 * 1 and 32 in flight, each beside the backend's raw operation rate measured in
 * the same run (a single-row upsert on SQLite, PostgreSQL and MariaDB; `SET`
 * on Redis), so every figure is also a ratio. Targets: counters and cache sets
 * at 32 in flight reach 50 % of the raw rate; an uncontended lock acquire has
 * a p99 of 5 ms or less on PostgreSQL and MariaDB.
 *
 *   npm run bench -- coordination                 # every backend
 *   npm run bench -- coordination postgres redis  # only those
 *
 * BENCH_COORD_SECONDS (default 2) bounds each timed phase.
 */
import { randomBytes } from "node:crypto";
import { openCoordination } from "../src/adapters/coordination/open-coordination.ts";
import { openDatabase } from "../src/adapters/store/open-database.ts";
import type { Coordination } from "../src/engine/coordination/coordination-port.ts";
import { createTestDatabase, unavailableReason } from "../test/support/backends.ts";
import { REDIS_TEST_URL } from "../test/coordination/support/coordination-backends.ts";
import { rawUpsertRate, type RawBackend } from "./lib/raw-upsert.ts";
import { printTable, writeResults } from "./lib/results.ts";
import { runConcurrent } from "./lib/run-concurrent.ts";
import { round, summarize } from "./lib/stats.ts";

type BackendName = "memory" | RawBackend;
const BACKENDS: BackendName[] = ["memory", "sqlite", "postgres", "mysql", "redis"];
const IN_FLIGHT = [1, 32];
const SECONDS = Number(process.env.BENCH_COORD_SECONDS ?? 2);
const TENANT = "default";
/** Lock names cycle through 4,096: with 32 in flight no two operations share one (uncontended). */
const LOCK_NAMES = 4096;
const KEYS = 1000;

interface Row {
  backend: BackendName;
  op: string;
  inFlight: number;
  perSecond: number;
  p50: number;
  p99: number;
  rawPerSecond: number | null;
  ratio: number | null;
  /** Locks only: p99 of the acquire alone (ms). */
  acquireP99: number | null;
  errors: number;
}

interface Opened {
  coordination: Coordination;
  raw: ((concurrency: number) => Promise<number>) | null;
  close(): Promise<void>;
}

async function open(backend: BackendName): Promise<Opened> {
  const keyPrefix = `bench:${randomBytes(4).toString("hex")}:`;
  if (backend === "memory") {
    const coordination = openCoordination({ kind: "memory", keyPrefix });
    return { coordination, raw: null, close: () => coordination.close() };
  }
  if (backend === "redis") {
    const coordination = openCoordination({ kind: "redis", keyPrefix, redisUrl: REDIS_TEST_URL });
    return {
      coordination,
      raw: (c) => rawUpsertRate("redis", REDIS_TEST_URL, c, SECONDS),
      close: () => coordination.close(),
    };
  }
  const database = await createTestDatabase({ name: backend });
  // As many connections as operations in flight, like the raw rate it is compared with.
  const db = openDatabase(database.url, { poolSize: Math.max(...IN_FLIGHT) });
  await db.migrate();
  const coordination = openCoordination({ kind: "sql", keyPrefix, sql: db.coordinationContext });
  return {
    coordination,
    raw: (c) => rawUpsertRate(backend, database.url, c, SECONDS),
    async close() {
      await coordination.close();
      await db.close();
      await database.drop();
    },
  };
}

/** Latencies of the acquire alone, inside "lock acquire+release": the target is about acquiring. */
let acquireLatencies: number[] = [];

function operations(c: Coordination): Record<string, (i: number) => Promise<void>> {
  const counter = c.limiters.limiter({ name: "bench", points: 1e9, windowMs: 3_600_000 });
  return {
    "lock acquire+release": async (i) => {
      const t0 = performance.now();
      const h = await c.locks.acquire(TENANT, `bench-lock-${i % LOCK_NAMES}`, { leaseMs: 30_000 });
      acquireLatencies.push(performance.now() - t0);
      if (h === null) throw new Error("an uncontended lock was not granted");
      await h.release();
    },
    "counter consume": async (i) => {
      const r = await counter.consume(TENANT, `k${i % KEYS}`);
      if (!r.allowed) throw new Error("consume refused under a cap of 1e9");
    },
    "cache set": (i) => c.cache.set(TENANT, `k${i % KEYS}`, { v: i }, 60_000),
    "cache get": async (i) => {
      await c.cache.get(TENANT, `k${i % KEYS}`);
    },
  };
}

/**
 * Every operation is compared with the same raw write rate: writes are what
 * the targets are about, and a get quoted against a write says only that it
 * is cheaper, which is no claim.
 */
async function benchBackend(backend: BackendName): Promise<Row[]> {
  const opened = await open(backend);
  const rows: Row[] = [];
  try {
    const ops = operations(opened.coordination);
    for (const inFlight of IN_FLIGHT) {
      const raw = opened.raw ? await opened.raw(inFlight) : null;
      for (const [op, fn] of Object.entries(ops)) {
        await runConcurrent(inFlight, 200, SECONDS, fn); // warm-up: connections, statements
        acquireLatencies = [];
        const r = await runConcurrent(inFlight, 1e9, SECONDS, fn);
        const acquire = acquireLatencies.length > 0 ? summarize(acquireLatencies, r.seconds) : null;
        const s = summarize(r.latencies, r.seconds);
        if (r.firstError !== undefined) console.warn(`${backend} ${op}:`, r.firstError);
        rows.push({
          backend,
          op,
          inFlight,
          perSecond: s.perSecond,
          p50: s.p50,
          p99: s.p99,
          rawPerSecond: raw,
          ratio: raw === null ? null : round(s.perSecond / raw, 2),
          acquireP99: acquire?.p99 ?? null,
          errors: r.errors,
        });
      }
    }
  } finally {
    await opened.close();
  }
  return rows;
}

export async function run(args: string[]): Promise<void> {
  const chosen = args.length > 0 ? BACKENDS.filter((b) => args.includes(b)) : BACKENDS;
  const rows: Row[] = [];
  for (const backend of chosen) {
    if (backend !== "memory" && backend !== "redis") {
      const reason = await unavailableReason({ name: backend });
      if (reason !== null) {
        console.warn(`# ${backend} skipped: ${reason}`);
        continue;
      }
    }
    console.log(`# ${backend}…`);
    rows.push(...(await benchBackend(backend)));
  }
  printTable(
    rows.map((r) => ({
      backend: r.backend,
      op: r.op,
      "in flight": r.inFlight,
      "ops/s": r.perSecond,
      "p50 ms": r.p50,
      "p99 ms": r.p99,
      "raw/s": r.rawPerSecond ?? "—",
      "of raw": r.ratio === null ? "—" : `${Math.round(r.ratio * 100)} %`,
      "acquire p99 ms": r.acquireP99 ?? "",
      errors: r.errors,
    })),
  );
  console.log(`results: ${writeResults("coordination", { seconds: SECONDS, rows })}`);
}
