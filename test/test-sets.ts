/**
 * The two test sets, by where a file lives (README, "Tests"):
 *
 * - unit: every `*.test.ts` under test/unit/. No database at all (not even a
 *   SQLite file or `:memory:`) and no child process; `npm run test:unit`, seconds.
 * - db:   every other `*.test.ts` under test/: real databases (SQLite,
 *   PostgreSQL, MariaDB), server processes, chaos; `npm run test:db`.
 *
 * Every test file is in exactly one set, so a new file is never left out;
 * test/unit/test-sets.test.ts checks that, and that unit files import nothing
 * that opens a database or starts a process.
 *
 * The db set runs in two groups (test/run-tests.ts): most files several at a
 * time (they mostly wait on I/O, and each isolates itself: a random database
 * or temp file, a random key prefix, ports from freePort()), then the files
 * listed in DB_EXCLUSIVE one at a time on an otherwise quiet machine. A new
 * file is in the parallel group unless it is listed here.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export type TestSet = "unit" | "db";

export const UNIT_DIR = "test/unit/";

/** Every `*.test.ts` under `<root>/test`, as a sorted `test/...` path with `/` separators. */
export function allTestFiles(root: string): string[] {
  return readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
    .map((p) => `test/${p.split("\\").join("/")}`)
    .filter((p) => p.endsWith(".test.ts") && !p.includes("/node_modules/"))
    .sort();
}

export const setOf = (file: string): TestSet => (file.startsWith(UNIT_DIR) ? "unit" : "db");

export const testFiles = (set: TestSet, root: string): string[] =>
  allTestFiles(root).filter((f) => setOf(f) === set);

/**
 * db files that run after all others, one at a time: their assertions measure
 * time, load or crashes, or they load the machine themselves, so they would
 * fail beside other files or make them fail. Each says why.
 */
export const DB_EXCLUSIVE: readonly string[] = [
  // Loads the machine by design (200 connections, 12 s per backend) and asserts /healthz within 1 s.
  "test/server/overload.test.ts",
  // Faults, SIGSTOP and kill -9 of server nodes under load; recovery within fixed times.
  "test/chaos/chaos.test.ts",
  // kill -9 of a lock holder; the lock must pass to another node within 1.5 s.
  "test/coordination/lock-holder-kill.test.ts",
  // Two server processes, node A killed -9; the key must stay blocked for the marker's TTL, then run.
  "test/server/two-nodes-coordination.test.ts",
  // kill -9 mid-write; two processes meet at a moment fixed 1.5 s ahead; counts event-loop turns and COMMITs.
  "test/store/sqlite-group-commit.test.ts",
  // A NOTIFY must wake a worker within 1 s; 1,000 runs over two competing workers.
  "test/durable/integration.test.ts",
  // Connections cut under steady load; every request must succeed again within 2 s of the last fault.
  "test/http/connection-loss.test.ts",
  // kill -9 of its own redis-server under 8 readers for 11 s; no read may take 1.5 s, hits back within 10 s.
  "test/definition-cache/redis-stop.test.ts",
  // Three server processes under load while 1,000 routes are published; each must serve them within 2 s.
  "test/definitions/routes-three-nodes.test.ts",
];

/**
 * db files that kill or start processes and load the machine for minutes, but
 * whose bounds are loose (tens of seconds, or none: they count outcomes, not
 * time): two of them side by side still pass, and pairing them saves minutes
 * of CI. They run after the parallel group and before the exclusive one, two
 * at a time, never beside a file of the parallel group. Each says why.
 */
export const DB_PAIRED: readonly string[] = [
  // In the order they start, longest first (seconds alone, 2026-12-04: 132, 125, 106, 103,
  // 41, 24, 16): two at a time, the group ends soon after its longest pair, not with one
  // long file started last beside an idle slot.
  //
  // 200 processes of a definition while the executing process is killed -9 twenty times; a lease to wait out per kill.
  // It counts completions and duplicate effects; its waits are leases (5 s), not bounds.
  "test/durable/definition-crash.test.ts",
  // Worker processes killed with kill -9 at random moments while runs are in flight; minutes of load.
  // Its only deadline: every run completes within 60 s of the last kill.
  "test/durable/worker-process.test.ts",
  // Three server processes, 1,000 rounds of racing publishes and reads per mode. Strict has no time
  // bound; bounded allows the poll + 1 s, which two such files side by side keep (the pair is the
  // two deployments of the same property, and they start together here too).
  "test/definition-cache/three-nodes-postgres.property.test.ts",
  "test/definition-cache/three-nodes-mariadb.property.test.ts",
  // kill -9 of a definition writer with its fence open; the reaper must complete it after 6 s of owner silence.
  "test/definition-cache/timeline-orphan-kill.test.ts",
  // Up to four server and worker processes at once (each a node + tsx start); runs must complete within 30 s.
  "test/durable/served-workflows-process.test.ts",
  // kill -9 of a definition writer (an orphaned fence) beside two nodes per deployment, three deployments;
  // its only time bound is the bounded mode's poll + 500 ms, and that the reaper (6 s) is not waited for.
  "test/definitions/routes-fenced.test.ts",
];

const isExclusive = (file: string): boolean => DB_EXCLUSIVE.includes(file);
const isPaired = (file: string): boolean => DB_PAIRED.includes(file);

/**
 * Parallel-group files that run longest, started first: the group ends when
 * its last file does, so a long file started near the end keeps a core busy
 * alone for minutes while the others idle. The longest measured, longest
 * first; every other file follows in the set's order.
 */
export const DB_LONGEST_FIRST: readonly string[] = [
  // Seconds each took in one parallel-group run, four at a time, run-tests starting them
  // in this order (2026-12-06, bundled): relative, not absolute.
  "test/store/store-contract.test.ts", // 134
  "test/package/consumer.test.ts", // 73
  "test/durable/run-store-contract.test.ts", // 63
  "test/server/cli.test.ts", // 54
  "test/server/shared-rate-limit.test.ts", // 50
  "test/server/api-keys.e2e.test.ts", // 50
  "test/http/races.test.ts", // 49
  "test/coordination/locks-contract.test.ts", // 38
  "test/server/idempotency.test.ts", // 37
  "test/docs/runnable-blocks.test.ts", // 35
  "test/server/definition-versions.e2e.test.ts", // 34
  "test/durable/run-quarantine.test.ts", // 34
  "test/client/client.test.ts", // 33
  "test/store/cache-ledger-contract.test.ts", // 32
  "test/definitions/expression-budget.test.ts", // 32
  "test/http/bad-input.property.test.ts", // 32
];

const longestFirst = (a: string, b: string): number =>
  rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0);
const rank = (file: string): number => {
  const at = DB_LONGEST_FIRST.indexOf(file);
  return at === -1 ? DB_LONGEST_FIRST.length : at;
};

/** The db files that may run beside each other, DB_LONGEST_FIRST first. */
export const dbParallelFiles = (root: string): string[] =>
  testFiles("db", root)
    .filter((f) => !isExclusive(f) && !isPaired(f))
    .sort(longestFirst);

/** The db files of DB_PAIRED, in its order (longest first). */
export const dbPairedFiles = (root: string): string[] => {
  const files = testFiles("db", root);
  return DB_PAIRED.filter((f) => files.includes(f));
};

/** The db files of DB_EXCLUSIVE, in the set's (sorted) order. */
export const dbExclusiveFiles = (root: string): string[] =>
  testFiles("db", root).filter(isExclusive);
