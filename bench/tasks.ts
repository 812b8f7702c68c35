/**
 * `npm run bench -- tasks` (issue 2): the REST cycle
 *   start → assign users ×3 with onAllCompleted → 3 completes → join
 * on each backend at concurrency 1 and 32, plus the raw single-row-insert
 * ceiling of the same database in the same run, and the inbox query on
 * PostgreSQL with 1,000,000 tasks (inbox-seed.ts), and the cycle's CPU per
 * cycle against a minimal Fastify + pg server (rest-ceiling.ts).
 *
 * Arguments pick parts: backend names (sqlite, postgres, mysql), `inbox`,
 * `ceiling`; none runs everything. `npm run bench -- tasks ceiling` runs only
 * the ceiling comparison.
 */
import {
  backends,
  createTestDatabase,
  unavailableReason,
  type Backend,
} from "../test/support/backends.ts";
import { JsonClient } from "./lib/http-client.ts";
import { API_KEY, cycle } from "./lib/task-cycle.ts";
import { benchInbox } from "./inbox.ts";
import { benchRestCeiling, printCeiling, type CeilingRow } from "./rest-ceiling.ts";
import { rawInsertCeiling } from "./lib/raw-ceiling.ts";
import { writeResults, printTable } from "./lib/results.ts";
import { runConcurrent } from "./lib/run-concurrent.ts";
import { startServer } from "../test/support/server-process.ts";
import { round, summarize, type Summary } from "./lib/stats.ts";

const CONCURRENCY = [1, 32];

interface CycleResult {
  backend: string;
  concurrency: number;
  cycles: Summary;
  requestsPerSecond: number;
  errors: number;
  rawInsertsPerSecond: number;
}

async function benchBackend(b: Backend, seconds: number): Promise<CycleResult[]> {
  const db = await createTestDatabase(b);
  const server = await startServer({
    DATABASE_URL: db.url,
    NODE_ENV: "production",
    WF_API_KEYS: API_KEY,
    LOG_LEVEL: "warn",
  });
  const client = new JsonClient("127.0.0.1", server.port, { "x-api-key": API_KEY });
  const out: CycleResult[] = [];
  try {
    await runConcurrent(8, 200, 10, (i) => cycle(client, i)); // warm-up: JIT, pools, caches
    for (const c of CONCURRENCY) {
      const r = await runConcurrent(c, c === 1 ? 2_000 : 20_000, seconds, (i) => cycle(client, i));
      if (r.firstError) console.error(`  ${b.name} c=${c}: first error:`, r.firstError);
      const cycles = summarize(r.latencies, r.seconds);
      const raw = await rawInsertCeiling(db.url, c, Math.min(seconds, 5));
      out.push({
        backend: b.name,
        concurrency: c,
        cycles,
        requestsPerSecond: round(cycles.perSecond * 5, 0),
        errors: r.errors,
        rawInsertsPerSecond: raw,
      });
    }
  } finally {
    client.close();
    await server.stop();
    await db.drop();
  }
  return out;
}

export async function run(args: string[]) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const only = args.filter((a) => !a.startsWith("-"));
  const results: CycleResult[] = [];
  for (const b of backends.filter((x) => only.length === 0 || only.includes(x.name))) {
    const why = await unavailableReason(b);
    if (why) {
      console.log(`skipping ${b.name}: ${why}`);
      continue;
    }
    console.log(`tasks cycle on ${b.name} …`);
    results.push(...(await benchBackend(b, seconds)));
  }
  if (results.length > 0) {
    console.log(
      "\nREST cycle: start → assign users×3 with onAllCompleted → 3 completes → join (5 requests)",
    );
  }
  printTable(
    results.map((r) => ({
      backend: r.backend,
      c: r.concurrency,
      "cycles/s": r.cycles.perSecond,
      "req/s": r.requestsPerSecond,
      "p50 ms": r.cycles.p50,
      "p99 ms": r.cycles.p99,
      cycles: r.cycles.count,
      errors: r.errors,
      "raw inserts/s": r.rawInsertsPerSecond,
    })),
  );
  const inbox =
    only.length === 0 || only.includes("inbox") || only.includes("postgres")
      ? await benchInbox()
      : null;
  let ceiling: CeilingRow[] | null = null;
  if (only.length === 0 || only.includes("ceiling") || only.includes("postgres")) {
    const why = await unavailableReason({ name: "postgres" });
    if (why) console.log(`skipping the REST ceiling: ${why}`);
    else {
      console.log("\nREST cycle against its ceiling (PostgreSQL) …");
      ceiling = await benchRestCeiling();
      console.log(
        "\nCPU ms per cycle (medians over interleaved rounds): server process; PostgreSQL = " +
          "the database's backends + the cluster's background processes",
      );
      printCeiling(ceiling);
    }
  }
  const file = writeResults("tasks", { cycles: results, inbox, ceiling });
  console.log(`\nwritten ${file}`);
}
