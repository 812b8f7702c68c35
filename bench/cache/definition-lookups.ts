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
 * connection (openDatabase's onQuery) and divided by the lookups: every
 * statement sent from the lookups' async context, the ones a lookup causes
 * through single flight or a refresh included; a bounded cache's timer poll
 * is counted apart (background) and reported with the run.
 *
 * Each row is the median of ROUNDS rounds of SECONDS each, after a warm-up
 * round; in each round the rows take turns (so a drift of the shared machine
 * falls on all of them), every cache open at once. Latency is one lookup's,
 * call to result, in µs.
 */
import type { DefinitionVersion } from "../../src/domain/definition-version.ts";
import { runConcurrent } from "../lib/run-concurrent.ts";
import { median, percentile, round } from "../lib/stats.ts";
import {
  openCache,
  type OpenedCache,
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
async function timedRound(db: LookupDatabase, concurrency: number, seconds: number, op: Op) {
  const r = await db.inLookups(() =>
    runConcurrent(concurrency, Number.MAX_SAFE_INTEGER, seconds, op),
  );
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

/** One row's operation, before it is measured at a concurrency. */
interface Subject {
  readonly row: Omit<LookupRow, "concurrency" | "figures">;
  readonly op: Op;
  /** The cache's hit count (0 where nothing is cached). */
  readonly hits: () => number;
}

interface Tally {
  rounds: Figures["rounds"];
  lookups: number;
  errors: number;
  queries: number;
  hits: number;
}

/**
 * Every subject at one concurrency: a warm-up round each, then ROUNDS rounds
 * in which the subjects take turns, each round starting one further along, so
 * a drift of the shared machine falls on all rows alike.
 */
async function measureAll(
  db: LookupDatabase,
  concurrency: number,
  subjects: readonly Subject[],
): Promise<LookupRow[]> {
  for (const s of subjects) await timedRound(db, concurrency, WARMUP_SECONDS, s.op);
  const tallies: Tally[] = subjects.map(() => ({
    rounds: [],
    lookups: 0,
    errors: 0,
    queries: 0,
    hits: 0,
  }));
  for (let k = 0; k < ROUNDS; k++) {
    console.log(`  ${db.backend}: ${concurrency} in flight, round ${k + 1} of ${ROUNDS}`);
    for (let j = 0; j < subjects.length; j++) {
      const at = (j + k) % subjects.length;
      const s = subjects[at]!;
      const t = tallies[at]!;
      const queries0 = db.queries();
      const hits0 = s.hits();
      const r = await timedRound(db, concurrency, SECONDS, s.op);
      t.queries += db.queries() - queries0;
      t.hits += s.hits() - hits0;
      t.lookups += r.lookups;
      t.errors += r.errors;
      t.rounds.push({ lookupsPerSecond: r.lookupsPerSecond, p50Us: r.p50Us, p99Us: r.p99Us });
    }
  }
  return subjects.map((s, i) => ({ ...s.row, concurrency, figures: figuresOf(tallies[i]!) }));
}

function figuresOf(t: Tally): Figures {
  return {
    lookupsPerSecond: median(t.rounds.map((r) => r.lookupsPerSecond)),
    p50Us: median(t.rounds.map((r) => r.p50Us)),
    p99Us: median(t.rounds.map((r) => r.p99Us)),
    queriesPerLookup: round(t.queries / t.lookups, 4),
    hitShare: round(t.hits / t.lookups, 4),
    lookups: t.lookups,
    errors: t.errors,
    rounds: t.rounds,
  };
}

function expectVersion(db: LookupDatabase, got: DefinitionVersion | undefined): void {
  // A wrong answer would make every figure meaningless; the check costs well under a µs.
  if (got?.key !== db.key || got.version !== db.version) {
    throw new Error(`lookup returned ${JSON.stringify(got)?.slice(0, 80)}`);
  }
}

function ceilingSubjects(db: LookupDatabase): Subject[] {
  const row = (name: string) => ({ backend: db.backend, kind: "ceiling" as const, name });
  return [
    {
      row: row("ledger readState"),
      op: async () => void (await db.database.cacheLedger.readState("data")),
      hits: () => 0,
    },
    {
      row: row("store latestPublished"),
      op: async () =>
        expectVersion(db, await db.database.definitions.latestPublished(TENANT, db.key)),
      hits: () => 0,
    },
  ];
}

/** The variant's subject, its cache open and warm; or why it is not available. */
async function variantSubject(
  db: LookupDatabase,
  variant: CacheVariant,
  redisDown: string | null,
): Promise<{ subject: Subject; cache: OpenedCache } | { unavailable: string }> {
  if (variant.provider === "redis" && redisDown !== null) return { unavailable: redisDown };
  let cache: OpenedCache;
  try {
    cache = await openCache(db, variant);
  } catch (e) {
    return { unavailable: (e as Error).message };
  }
  const { store, manager } = cache.parts;
  const op: Op = async (i) =>
    expectVersion(
      db,
      i % 2 === 0
        ? await store.latestPublished(TENANT, db.key)
        : await store.getVersion(TENANT, db.key, db.version),
    );
  // The first lookup of each kind fills; every later one is a hit.
  await op(0);
  await op(1);
  const row = { backend: db.backend, kind: "lookup" as const, name: variantName(variant), variant };
  const hits = () => (variant.provider === "none" ? 0 : manager.stats.hits);
  return { subject: { row, op, hits }, cache };
}

export interface BackendLookups {
  backend: string;
  /** The looked-up definition's size as JSON. */
  bodyBytes: number;
  /** Statements outside the lookups during the whole run (bounded polls and listeners, set-up). */
  backgroundQueries: number;
  rows: LookupRow[];
}

/** Every row for one backend: the ceiling and each variant, their rounds interleaved. */
export async function definitionLookups(backend: "postgres" | "mysql"): Promise<BackendLookups> {
  const db = await openLookupDatabase(backend);
  const caches: OpenedCache[] = [];
  try {
    const redisDown = await redisUnavailable();
    const subjects = ceilingSubjects(db);
    const unavailable: LookupRow[] = [];
    for (const variant of VARIANTS) {
      const got = await variantSubject(db, variant, redisDown);
      if ("unavailable" in got) {
        const row = { backend, kind: "lookup" as const, name: variantName(variant), variant };
        for (const c of CONCURRENCIES)
          unavailable.push({ ...row, concurrency: c, unavailable: got.unavailable });
      } else {
        subjects.push(got.subject);
        caches.push(got.cache);
      }
    }
    const rows: LookupRow[] = [...unavailable];
    for (const c of CONCURRENCIES) rows.push(...(await measureAll(db, c, subjects)));
    return {
      backend,
      bodyBytes: db.bodyBytes,
      backgroundQueries: db.backgroundQueries(),
      rows: rows.sort(byTableOrder),
    };
  } finally {
    for (const c of caches) await c.close();
    await db.close();
  }
}

/** Ceiling first, then the variants in VARIANTS' order; 1 in flight before 32 within each. */
function byTableOrder(a: LookupRow, b: LookupRow): number {
  const rank = (r: LookupRow) =>
    r.kind === "ceiling"
      ? r.name === "ledger readState"
        ? 0
        : 1
      : 2 + VARIANTS.findIndex((v) => v === r.variant);
  return rank(a) - rank(b) || a.concurrency - b.concurrency;
}
