/**
 * Trigger route matching: 10,000 routes of one tenant (200 definitions of 50
 * triggers; literal and `{param}` segments over a shared vocabulary, so the
 * trie branches and backtracks as real route sets do), among 100 other
 * tenants' routes. Measures the table's build (what a rebuild costs) and one
 * match — percent-decoding the path's segments and walking the trie — over
 * many lookups of paths that match and of paths that do not. Target: p99 of
 * one match ≤ 50 µs.
 */
import type { TenantHead } from "../../src/engine/definitions/definition-version-store-port.ts";
import { compileTenants } from "../../src/engine/definitions/triggers/compile-route-table.ts";
import { RouteTable, requestSegments } from "../../src/engine/definitions/triggers/route-table.ts";
import { percentile, round } from "../lib/stats.ts";

export const ROUTES = 10_000;
const PER_DEFINITION = 50;
const OTHER_TENANTS = 100;
const LOOKUPS = Number(process.env.BENCH_TRIGGER_LOOKUPS ?? 200_000);
const WARMUP = 20_000;
export const TARGET_P99_US = 50;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export interface TriggerMatchingResult {
  routes: number;
  tenants: number;
  buildMs: number;
  lookups: number;
  /** Lookups of paths some route matches (with parameters). */
  hit: { p50Us: number; p99Us: number; maxUs: number };
  /** Lookups of paths no route matches (they backtrack the most). */
  miss: { p50Us: number; p99Us: number; maxUs: number };
  targetP99Us: number;
  met: boolean;
}

/** A small deterministic PRNG: the same routes on every run. */
function prng(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

interface Template {
  method: string;
  segments: ({ literal: string } | { param: string })[];
}

function templates(count: number, rand: (n: number) => number): Template[] {
  const out: Template[] = [];
  for (let i = 0; i < count; i++) {
    const depth = 2 + rand(4);
    const segments: Template["segments"] = [{ literal: `svc${i % 40}` }];
    for (let d = 1; d < depth; d++) {
      segments.push(rand(10) < 3 ? { param: `p${d}` } : { literal: `r${rand(25)}` });
    }
    // Unique shape per route: the last segment names it.
    segments.push({ literal: `op${i}` });
    out.push({ method: METHODS[rand(METHODS.length)]!, segments });
  }
  return out;
}

const templatePath = (t: Template) =>
  "/" + t.segments.map((s) => ("literal" in s ? s.literal : `{${s.param}}`)).join("/");

function heads(tenantId: string, list: Template[]): TenantHead[] {
  const out: TenantHead[] = [];
  for (let d = 0; d * PER_DEFINITION < list.length; d++) {
    const triggers = list
      .slice(d * PER_DEFINITION, (d + 1) * PER_DEFINITION)
      .map((t) => ({ method: t.method, path: templatePath(t) }));
    const key = `def-${d}`;
    out.push({ tenantId, key, version: 1, body: JSON.stringify({ key, triggers }) });
  }
  return out;
}

function timeLookups(
  table: RouteTable,
  requests: { method: string; path: string }[],
  expectHit: boolean,
): { p50Us: number; p99Us: number; maxUs: number } {
  const times = new Float64Array(requests.length);
  for (let i = 0; i < requests.length; i++) {
    const r = requests[i]!;
    const t0 = process.hrtime.bigint();
    const found = table.match("main", r.method, requestSegments(r.path) ?? []);
    times[i] = Number(process.hrtime.bigint() - t0) / 1000;
    if ((found.kind === "match") !== expectHit)
      throw new Error(`unexpected ${found.kind} for ${r.path}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50Us: round(percentile(sorted, 50), 2),
    p99Us: round(percentile(sorted, 99), 2),
    maxUs: round(sorted[sorted.length - 1] ?? NaN, 1),
  };
}

function requestsFor(list: Template[], rand: (n: number) => number, count: number, hit: boolean) {
  const out: { method: string; path: string }[] = [];
  for (let i = 0; i < count; i++) {
    const t = list[rand(list.length)]!;
    const segs = t.segments.map((s) => ("literal" in s ? s.literal : `v%20${rand(1_000_000)}`));
    // A miss: the same path with its last segment unknown (the deepest backtracking).
    if (!hit) segs[segs.length - 1] = `nope${rand(1000)}`;
    out.push({ method: t.method, path: "/" + segs.join("/") });
  }
  return out;
}

export async function triggerMatching(): Promise<TriggerMatchingResult> {
  const rand = prng(42);
  const main = templates(ROUTES, rand);
  const all = heads("main", main);
  for (let t = 0; t < OTHER_TENANTS; t++) all.push(...heads(`tenant-${t}`, templates(50, rand)));
  const t0 = performance.now();
  const table = new RouteTable(compileTenants(all));
  const buildMs = round(performance.now() - t0, 1);
  if (table.size !== ROUTES + OTHER_TENANTS * 50) throw new Error(`built ${table.size} routes`);
  timeLookups(table, requestsFor(main, rand, WARMUP, true), true);
  const hit = timeLookups(table, requestsFor(main, rand, LOOKUPS, true), true);
  const miss = timeLookups(table, requestsFor(main, rand, LOOKUPS / 4, false), false);
  await Promise.resolve();
  return {
    routes: ROUTES,
    tenants: OTHER_TENANTS + 1,
    buildMs,
    lookups: LOOKUPS,
    hit,
    miss,
    targetP99Us: TARGET_P99_US,
    met: hit.p99Us <= TARGET_P99_US && miss.p99Us <= TARGET_P99_US,
  };
}
