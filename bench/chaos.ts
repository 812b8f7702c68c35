/**
 * `npm run chaos [-- <scenario|backend|--quick> …]`: every fault scenario on
 * every backend it applies to (or the ones named), under mixed load on two
 * `taskflow serve` nodes. Prints scenario × backend → acknowledged, lost,
 * re-executed, recovery seconds; writes the JSON to bench/results/.
 */
import { backends, unavailableReason } from "../test/support/backends.ts";
import { faults } from "../test/chaos/support/faults.ts";
import {
  emptyResult,
  runScenario,
  type ScenarioResult,
} from "../test/chaos/support/run-scenario.ts";
import { scales } from "../test/chaos/support/scales.ts";
import { printTable, writeResults } from "./lib/results.ts";

const fmt = (s: number | null) => (s === null ? "never" : s.toFixed(1));

function row(r: ScenarioResult): Record<string, string | number> {
  return {
    scenario: r.scenario,
    backend: r.backend,
    acknowledged: r.skipped ? "skipped" : r.acknowledged,
    lost: r.lost,
    "re-executed": r.reexecuted,
    "in-flight reruns": r.rerunInFlight,
    "fenced late": r.fencedLate,
    "recovery s (writes)": fmt(r.recoveryRequestS),
    "recovery s (run)": fmt(r.recoveryRunS),
    restarts: r.restarts,
    verdict: r.skipped ? "skipped" : r.problems.length === 0 ? "ok" : "FAIL",
  };
}

export async function run(args: string[]): Promise<void> {
  const scale = args.includes("--quick") ? scales.quick : scales.full;
  const named = args.filter((a) => !a.startsWith("--"));
  const pick = <T extends { name: string }>(xs: readonly T[]) =>
    named.some((n) => xs.some((x) => x.name === n)) ? xs.filter((x) => named.includes(x.name)) : xs;
  const results: ScenarioResult[] = [];
  for (const b of pick(backends)) {
    const reason = await unavailableReason(b);
    for (const fault of pick(faults).filter((f) => f.backends.includes(b.name))) {
      console.log(`# ${fault.name} on ${b.name} …`);
      const r = reason ? emptyResult(b, fault, reason) : await runScenario(b, fault, scale);
      if (r.skipped) console.log(`#   skipped: ${r.skipped}`);
      for (const p of r.problems) console.log(`#   ${p}`);
      if (r.kept) console.log(`#   kept ${r.kept}`);
      console.log(`#   phases (s): ${JSON.stringify(r.phasesS)}`);
      results.push(r);
    }
  }
  printTable(results.map(row));
  console.log(`\nwrote ${writeResults("chaos", { scale, results })}`);
  if (results.some((r) => !r.skipped && r.problems.length > 0)) process.exitCode = 1;
}
