/**
 * Definition lookups through the definition cache, and what they cost in SQL.
 *
 * A lookup is CachedDefinitionStore.latestPublished or getVersion (the two
 * reads a process start and a replay make), alternating, of one published
 * definition (the leave-approval example, about 2 KB of JSON). Every cached
 * variant is warmed first, so the figures are hits (the hit share is
 * reported; a row with misses says so). Variants, all in one run on one
 * database: no cache (WF_DEFINITION_CACHE_ENABLED=false), memory and Redis,
 * each strict and bounded — bounded only where openConsistency builds it.
 *
 * Beside them the raw ceiling, measured the same way: the ledger's readState
 * alone (what strict adds to every hit) and the store's latestPublished alone
 * (what no cache costs). SQL statements are counted on the stores' own
 * connection (openDatabase's onQuery) and divided by the lookups, background
 * statements (a bounded poll) included.
 *
 * Each row is the median of ROUNDS rounds of SECONDS each, after a warm-up
 * round; latency is one lookup's, call to result, in µs.
 */
import type { DefinitionVersion } from "../../src/domain/definition-version.ts";
import type { CacheStats } from "../../src/engine/definition-cache/cache-manager.ts";
import { runConcurrent } from "../lib/run-concurrent.ts";
import { median, percentile, round } from "../lib/stats.ts";
import {
  openCache,
  openLookupDatabase,
  redisUnavailable,
  TENANT,
  type CacheVariant,
  type LookupDatabase,
} from "./lookup-setup.ts";

const ROUNDS = Number(process.env.BENCH_CACHE_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_CACHE_SECONDS ?? 1.5);
const WARMUP_SECONDS = 0.5;
export const CONCURRENCIES = [1, 32] as const;

/** The targets for a hit. */
export const TARGETS = {
  strictQueries: 1,
  boundedQueries: 0,
  boundedP99Us: { memory: 50, redis: 1000 },
} as const;

export interface Figures {
  lookupsPerSecond: number;
  p50Us: number;
  p99Us: number;
  /** Statements per lookup over all rounds. */
  queriesPerLookup: number;
  /** Hits per lookup over all rounds (0 for the store and ceiling rows). */
  hitShare: number;
  lookups: number;
  errors: number;
  rounds: { lookupsPerSecond: number; p50Us: number; p99Us: number }[];
}

export type RowKind = "ceiling" | "lookup";

export interface LookupRow {
  backend: string;
  kind: RowKind;
  /** e.g. "ledger readState", "no cache", "memory strict". */
  name: string;
  variant?: CacheVariant;
  concurrency: number;
  /** undefined when the variant is not available (the reason says why). */
  figures?: Figures;
  unavailable?: string;
}

export const VARIANTS: readonly CacheVariant[] = [
  { provider: "none", mode: "strict" },
  { provider: "memory", mode: "strict" },
  { provider: "memory", mode: "bounded" },
  { provider: "redis", mode: "strict" },
  { provider: "redis", mode: "bounded" },
];

export const variantName = (v: CacheVariant) =>
  v.provider === "none" ? "no cache" : `${v.provider} ${v.mode}`;

type Op = (i: number) => Promise<void>;

/** One round: lookups/s and latency, and the counters' movement over it. */
async function timedRound(concurrency: number, seconds: number, op: Op) {
  const r = await runConcurrent(concurrency, Number.MAX_SAFE_INTEGER, seconds, op);
  if (r.firstError !== undefined) console.error(`  first error:`, r.firstError);
  const sorted = r.latencies.map((ms) => ms * 1000).sort((a, b) => a - b);
  return {
    lookups: sorted.length,
    errors: r.errors,
    lookupsPerSecond: round(sorted.length / r.seconds, 0),
    p50Us: round(percentile(sorted, 50), 1),
    p99Us: round(percentile(sorted, 99), 1),
  };
}

async function measure(
  db: LookupDatabase,
  concurrency: number,
  op: Op,
  hits: () => number,
): Promise<Figures> {
  await timedRound(concurrency, WARMUP_SECONDS, op);
  const rounds: Figures["rounds"] = [];
  let lookups = 0;
  let errors = 0;
  const queries0 = db.queries();
  const hits0 = hits();
  for (let k = 0; k < ROUNDS; k++) {
    const r = await timedRound(concurrency, SECONDS, op);
    lookups += r.lookups;
    errors += r.errors;
    rounds.push({ lookupsPerSecond: r.lookupsPerSecond, p50Us: r.p50Us, p99Us: r.p99Us });
  }
  return {
    lookupsPerSecond: median(rounds.map((r) => r.lookupsPerSecond)),
    p50Us: median(rounds.map((r) => r.p50Us)),
    p99Us: median(rounds.map((r) => r.p99Us)),
    queriesPerLookup: round((db.queries() - queries0) / lookups, 4),
    hitShare: round((hits() - hits0) / lookups, 4),
    lookups,
    errors,
    rounds,
  };
}

function expectVersion(db: LookupDatabase, got: DefinitionVersion | undefined): void {
  // A wrong answer would make every figure meaningless; the check costs well under a µs.
  if (got?.key !== db.key || got.version !== db.version) {
    throw new Error(`lookup returned ${JSON.stringify(got)?.slice(0, 80)}`);
  }
}

async function ceilingRows(db: LookupDatabase, backend: string): Promise<LookupRow[]> {
  const ops: [string, Op][] = [
    ["ledger readState", async () => void (await db.database.cacheLedger.readState("data"))],
    [
      "store latestPublished",
      async () => expectVersion(db, await db.database.definitions.latestPublished(TENANT, db.key)),
    ],
  ];
  const rows: LookupRow[] = [];
  for (const [name, op] of ops) {
    for (const concurrency of CONCURRENCIES) {
      console.log(`  ${backend}: ${name}, ${concurrency} in flight`);
      const figures = await measure(db, concurrency, op, () => 0);
      rows.push({ backend, kind: "ceiling", name, concurrency, figures });
    }
  }
  return rows;
}

async function variantRows(
  db: LookupDatabase,
  backend: string,
  variant: CacheVariant,
  redisDown: string | null,
): Promise<LookupRow[]> {
  const base = { backend, kind: "lookup" as const, name: variantName(variant), variant };
  const unavailable = (why: string) =>
    CONCURRENCIES.map((c) => ({ ...base, concurrency: c, unavailable: why }));
  if (variant.provider === "redis" && redisDown !== null) return unavailable(redisDown);
  let opened;
  try {
    opened = await openCache(db, variant);
  } catch (e) {
    return unavailable((e as Error).message);
  }
  try {
    const { store, manager } = opened.parts;
    const op: Op = async (i) =>
      expectVersion(
        db,
        i % 2 === 0
          ? await store.latestPublished(TENANT, db.key)
          : await store.getVersion(TENANT, db.key, db.version),
      );
    // The first lookup of each kind fills; the rest of the warm-up rounds are hits.
    await op(0);
    await op(1);
    const counted = (s: CacheStats) => (variant.provider === "none" ? 0 : s.hits);
    const rows: LookupRow[] = [];
    for (const concurrency of CONCURRENCIES) {
      console.log(`  ${backend}: ${base.name}, ${concurrency} in flight`);
      const figures = await measure(db, concurrency, op, () => counted(manager.stats));
      rows.push({ ...base, concurrency, figures });
    }
    return rows;
  } finally {
    await opened.close();
  }
}

export interface BackendLookups {
  backend: string;
  /** The looked-up definition's size as JSON. */
  bodyBytes: number;
  rows: LookupRow[];
}

/** Every row for one backend: the ceiling, then each variant. */
export async function definitionLookups(backend: "postgres" | "mysql"): Promise<BackendLookups> {
  const db = await openLookupDatabase(backend);
  try {
    const redisDown = await redisUnavailable();
    const rows = await ceilingRows(db, backend);
    for (const variant of VARIANTS) {
      rows.push(...(await variantRows(db, backend, variant, redisDown)));
    }
    return { backend, bodyBytes: db.bodyBytes, rows };
  } finally {
    await db.close();
  }
}
