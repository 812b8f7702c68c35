/**
 * `npm run bench -- definitions`: the process definitions' benchmarks, as a
 * list of parts; each part measures one thing and reports table rows and its
 * figures. Arguments name the parts to run (default: all).
 *
 *   npm run bench -- definitions                    # every part
 *   npm run bench -- definitions trigger-matching   # only that one
 *   npm run bench -- definitions interpreted-vs-code
 */

/** The interpreted definition must reach this share of the code workflow's runs/s at 32 in flight on PostgreSQL. */
const TARGET_RATIO = 0.7;
import { interpretedVsCode } from "./definitions/interpreted-vs-code.ts";
import { triggerMatching, TARGET_P99_US } from "./definitions/trigger-matching.ts";
import { printTable, writeResults } from "./lib/results.ts";

interface PartResult {
  rows: Record<string, string | number>[];
  data: unknown;
}

interface Part {
  name: string;
  run(): Promise<PartResult>;
}

const PARTS: Part[] = [
  {
    name: "trigger-matching",
    async run() {
      const r = await triggerMatching();
      const row = (kind: string, s: typeof r.hit) => ({
        part: "trigger-matching",
        lookups: kind,
        routes: r.routes,
        "build ms": r.buildMs,
        "p50 µs": s.p50Us,
        "p99 µs": s.p99Us,
        "max µs": s.maxUs,
        target: `p99 ≤ ${TARGET_P99_US} µs: ${s.p99Us <= TARGET_P99_US ? "met" : "MISSED"}`,
      });
      return { rows: [row("match", r.hit), row("no match", r.miss)], data: r };
    },
  },
  {
    // A 3-state definition (call, call, end) against the same two steps as a code workflow,
    // alternating rounds on one PostgreSQL database; medians of the rounds.
    name: "interpreted-vs-code",
    async run() {
      const got = await interpretedVsCode("postgres");
      const rows = got.map((r) => ({
        part: "interpreted-vs-code",
        lookups: `${r.backend}, ${r.concurrency} in flight`,
        "code runs/s": r.code.runsPerSecond,
        "interpreted runs/s": r.interpreted.runsPerSecond,
        ratio: `${Math.round(r.ratio * 1000) / 10} %`,
        target:
          r.concurrency === 1
            ? "—"
            : `≥ ${TARGET_RATIO * 100} %: ${r.ratio >= TARGET_RATIO ? "met" : "MISSED"}`,
      }));
      return { rows, data: got };
    },
  },
];

export async function run(args: string[]): Promise<void> {
  const chosen = args.length > 0 ? PARTS.filter((p) => args.includes(p.name)) : PARTS;
  if (chosen.length === 0) {
    console.error(`parts: ${PARTS.map((p) => p.name).join(", ")}`);
    process.exit(2);
  }
  const rows: Record<string, string | number>[] = [];
  const data: Record<string, unknown> = {};
  for (const part of chosen) {
    console.log(`# ${part.name}…`);
    const result = await part.run();
    rows.push(...result.rows);
    data[part.name] = result.data;
  }
  printTable(rows);
  console.log(`results: ${writeResults("definitions", data)}`);
}
