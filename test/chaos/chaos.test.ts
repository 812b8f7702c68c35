/**
 * The short chaos suite inside `npm test`: a sample of the scenarios of
 * `npm run chaos` (one per fault class, spread over the backends) with a
 * smaller load, asserting the same invariants. The full matrix and its table:
 * `npm run chaos` (docs/chaos.md).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { backendTestOptions, backends, type Backend } from "../support/backends.ts";
import { faults } from "./support/faults.ts";
import { nodeNames, runScenario, type ScenarioResult } from "./support/run-scenario.ts";
import { scales } from "./support/scales.ts";

/**
 * One scenario per backend, 25–40 s each on the shared 2-core machine (half of
 * it two node starts), so three fit the 2-minute budget: the disk on SQLite,
 * connections cut under PostgreSQL, the lease fence (SIGSTOP) on MariaDB.
 */
const SAMPLE: [Backend["name"], string][] = [
  ["sqlite", "disk-full"],
  ["postgres", "db-cut"],
  ["mysql", "node-stop"],
];

/** A scenario takes 25–40 s; 100 s is a hang. */
const SCENARIO_TIMEOUT_MS = 100_000;

const linesAbout = (r: ScenarioResult, prefix: string) =>
  r.problems.filter((p) => p.startsWith(prefix));

function scenario(backendName: Backend["name"], faultName: string) {
  const b = backends.find((x) => x.name === backendName)!;
  const fault = faults.find((f) => f.name === faultName)!;
  const nodes = nodeNames(b).length;
  // One node on SQLite: one process per SQLite file (src/adapters/store/dialects/sqlite/process-lock.ts).
  const title = `chaos: ${faultName} on ${backendName}, ${nodes} node${nodes === 1 ? "" : "s"}`;
  describe(`${title} under mixed load`, async () => {
    const options = await backendTestOptions(b);
    let r: ScenarioResult;
    before(
      async () => {
        if (options.skip) return;
        r = await runScenario(b, fault, scales.quick);
        console.log(
          `# ${faultName} on ${backendName}: ${r.acknowledged} acknowledged, ${r.lost} lost, ` +
            `${r.reexecuted} re-executed, ${r.fencedLate} fenced late; recovery ` +
            `${r.recoveryRequestS} s (writes), ${r.recoveryRunS} s (run)`,
        );
      },
      { timeout: SCENARIO_TIMEOUT_MS },
    );
    it("ran: the load got writes acknowledged", options, () => {
      assert.equal(r.skipped, undefined, r.skipped);
      assert.ok(r.acknowledged > 0);
    });
    it(
      "every acknowledged write is read back; every run completed once, right output",
      options,
      () => {
        assert.deepEqual(linesAbout(r, "lost"), []);
        assert.equal(r.lost, 0);
      },
    );
    it("no step whose completion was recorded ran again", options, () => {
      assert.equal(r.reexecuted, 0, linesAbout(r, "ran again").join("\n"));
    });
    it("no node died or needed a restart", options, () => {
      assert.deepEqual(linesAbout(r, "node"), []);
      assert.equal(r.restarts, 0);
    });
    it("writes and runs succeed again after the fault", options, () => {
      assert.notEqual(r.recoveryRequestS, null, "a write acknowledged by every node");
      assert.notEqual(r.recoveryRunS, null, "a run started after the fault completed");
    });
    if (faultName === "node-stop" && backendName !== "sqlite") {
      it("the paused node's late step writes were refused by the fence", options, () => {
        assert.ok(r.fencedLate > 0, "a step the paused node finished after the takeover");
      });
    }
  });
}

for (const [b, f] of SAMPLE) scenario(b, f);
