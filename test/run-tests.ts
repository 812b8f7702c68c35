/**
 * `node --import tsx test/run-tests.ts unit|db [node test options]`: runs one
 * test set (test/test-sets.ts) with node's test runner. Behind `npm run
 * test:unit` and `npm run test:db`; options pass through, e.g.
 * `npm run test:db -- --test-name-pattern=sqlite`.
 *
 * - db: `node --test`, each file in its own process, in three groups. First
 *   the parallel group, TF_TEST_CONCURRENCY files at a time (default 4): most
 *   db files wait on databases and child processes, not the CPU, and each
 *   isolates itself (random database, key prefix and port). Then the files of
 *   DB_PAIRED two at a time (crash and load suites with loose bounds), then
 *   those of DB_EXCLUSIVE one at a time, on a machine no other test file
 *   loads. Every group runs even when an earlier one failed, so one run shows
 *   every failure; the exit code is non-zero when any did.
 * - unit: every file loaded into one process, its tests run one after another.
 *   Starting node and tsx once instead of once per file is most of the speed-up
 *   (about 25 s instead of 95 s on a busy 2-core machine); unit tests hold no
 *   shared resource, so they need no process of their own.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { builtCliIsStale } from "./support/built-cli.ts";
import { bundleTestFiles } from "./support/bundle-test-files.ts";
import { createTemplates, dropTemplates, TEMPLATE_ENV } from "./support/template-databases.ts";
import { dbExclusiveFiles, dbPairedFiles, dbParallelFiles, testFiles } from "./test-sets.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const [set, ...options] = process.argv.slice(2);
/**
 * Bundled (the db set by default, test/support/bundle-test-files.ts), a test file is
 * plain JavaScript with TaskFlow's sources inside it, and runs without tsx: loading tsx
 * and routing every import and require through its hooks cost a db file ~0.65 s of CPU
 * (on-query-hook: 1.26 → 0.58 s, 2026-12-07), in 130 files. What a file starts itself
 * from .ts sources (a server, a lock holder, the expression sandbox's child) names
 * `--import tsx` itself. The unit set and TF_TEST_BUNDLE=0 load .ts files, under tsx.
 * --enable-source-maps: a failure's stack names the test's .ts lines, not its bundle's.
 */
const bundled = set === "db" && process.env.TF_TEST_BUNDLE !== "0";
const node = [
  ...(bundled ? [] : ["--import", "tsx"]),
  "--enable-source-maps",
  "--test-reporter=spec",
  ...options,
];

/**
 * Four on 2 cores: the contract suites spend most of their time waiting on
 * PostgreSQL, MariaDB and Redis (locks-contract: 22 s for 3 s of CPU), so
 * more files than cores fill the waits. Three was the most while each server
 * start cost ~1.3 s more CPU (lazy-compilers.ts): more made the timing bounds
 * of some parallel files (lock waits of 2 s) tight then. Measured 2026-12-04:
 * the group took 427 s at three, 378 s at five (passed); four keeps a margin.
 */
const DEFAULT_CONCURRENCY = 4;

/**
 * A module that imports every file statically, so all of them are loaded
 * before the first test starts (tests started while later files still load
 * would run on a busy event loop).
 */
const importing = (files: string[]) =>
  files.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};`).join("\n");

/**
 * The spec reporter's closing "failing tests" sections of the groups run so
 * far. A failure in the first group is followed by ten minutes of the others'
 * output, so a CI log cut to its last lines would not show why it failed; they
 * are printed again at the very end.
 */
const failureReports: string[] = [];
const FAILING_TESTS = "✖ failing tests:";

/**
 * Runs node with `args`; resolves with its exit code (1 when killed by a signal).
 * `streamed`: its output goes out as it comes (one process at a time); otherwise it is
 * held and printed whole when the process ends, so files run side by side never
 * interleave their lines.
 */
function run(args: string[], streamed = true): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const take = (chunk: string) => {
      if (streamed) process.stdout.write(chunk);
      output += chunk;
      // Only the tail can hold the closing report; keep memory bounded on long runs.
      if (output.length > 4_000_000) output = output.slice(-2_000_000);
    };
    child.stdout.setEncoding("utf8").on("data", take);
    child.stderr.setEncoding("utf8").on("data", take);
    child.on("close", (code, signal) => {
      if (!streamed) process.stdout.write(output);
      const at = output.lastIndexOf(FAILING_TESTS);
      if (at !== -1) failureReports.push(output.slice(at));
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

function reprintFailures() {
  if (failureReports.length === 0) return;
  console.log("\n# run-tests: the failures again, last, so a log's tail shows them:");
  for (const report of failureReports) console.log(report);
}

function concurrency(): number {
  const raw = process.env.TF_TEST_CONCURRENCY;
  if (raw === undefined || raw === "") return DEFAULT_CONCURRENCY;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`run-tests: TF_TEST_CONCURRENCY must be a whole number ≥ 1, not ${raw}`);
    process.exit(2);
  }
  return n;
}

/**
 * A db file's process ends when its last test (and `after` hook) has, not when its event
 * loop empties. Without it a file whose tests were done held its slot (and, in the
 * exclusive group, the whole machine) until a driver's idle connections timed out or a
 * closed child's streams drained: lock-holder-kill's tests take 13 s and its process
 * 30 s; the exclusive group took 329 s, 264 s with it (2026-12-06, quiet machine). What a
 * test proves is in its assertions, which have all run; a leak it leaves still shows in
 * the test that checks for it, not in how long the process lingers.
 */
const FORCE_EXIT = "--test-force-exit";

/**
 * Runs one group of db files, `atOnce` at a time, each in a process of its own
 * (`node --test <file>`), started in the order given: longest first (test-sets.ts).
 * node's own `--test a b c --test-concurrency=n` starts its files in sorted path order,
 * whatever order they are given in, so a long file sorted last ran alone at the end
 * while the other slots idled (the paired group's worker-process: its last ~130 s).
 * Prints the group's time and its slowest files, so a slow run shows where time went.
 */
async function runGroup(name: string, files: string[], atOnce: number): Promise<number> {
  if (files.length === 0) return 0;
  const started = Date.now();
  console.log(`# run-tests: ${name}: ${files.length} files, ${atOnce} at a time`);
  const queue = [...files];
  const times: { file: string; seconds: number; code: number }[] = [];
  const slot = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const at = Date.now();
      const code = await run([...node, "--test", FORCE_EXIT, file], atOnce === 1);
      const seconds = (Date.now() - at) / 1000;
      times.push({ file, seconds, code });
      console.log(
        `# run-tests: ${file}: ${code === 0 ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, files.length) }, slot));
  const failed = times.filter((t) => t.code !== 0).map((t) => t.file);
  const slowest = [...times].sort((a, b) => b.seconds - a.seconds).slice(0, 8);
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(
    `# run-tests: ${name}: ${failed.length === 0 ? "passed" : `FAILED (${failed.join(", ")})`} ` +
      `in ${seconds} s; slowest: ${slowest.map((t) => `${t.file} ${Math.round(t.seconds)} s`).join(", ")}`,
  );
  return failed.length === 0 ? 0 : 1;
}

/**
 * One migrated template per backend for the whole run (test/support/template-databases.ts):
 * every test database is a copy of it instead of migrating itself. Made before the first
 * group, handed to the test processes in TEMPLATE_ENV, dropped after the last (and on ^C).
 */
async function withTemplates(body: () => Promise<number>): Promise<number> {
  const run = randomBytes(4).toString("hex");
  const started = Date.now();
  const made = await createTemplates(run);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`# run-tests: templates ${made.join(", ") || "none"}: migrated in ${seconds} s`);
  process.env[TEMPLATE_ENV] = [run, ...made].join(" ");
  const interrupted = () => void dropTemplates(run).finally(() => process.exit(130));
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    return await body();
  } finally {
    await dropTemplates(run);
  }
}

/**
 * The db files start the compiled CLI (test/support/built-cli.ts): rebuild
 * when src/ changed since the last build, so a developer never tests stale
 * code. In CI `npm ci` has just built, so this does nothing there.
 */
function buildIfStale(): number {
  if (!builtCliIsStale(root)) return 0;
  console.log("# run-tests: dist/ is older than src/: running npm run build");
  return spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" }).status ?? 1;
}

/**
 * The files to hand node, in the same order: their bundles (test/support/bundle-test-files.ts)
 * unless TF_TEST_BUNDLE=0, which runs the sources under tsx as they are (to rule the
 * bundling out when a test behaves differently).
 */
async function runnable(groups: string[][]): Promise<string[][]> {
  if (!bundled) return groups;
  const started = Date.now();
  const bundles = await bundleTestFiles(root, groups.flat());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`# run-tests: ${bundles.length} files bundled in ${seconds} s`);
  let at = 0;
  return groups.map((g) => bundles.slice(at, (at += g.length)));
}

async function runDb(): Promise<number> {
  const built = buildIfStale();
  if (built !== 0) return built;
  const [parallel = [], paired = [], exclusive = []] = await runnable([
    dbParallelFiles(root),
    dbPairedFiles(root),
    dbExclusiveFiles(root),
  ]);
  const codes = [
    await runGroup("parallel group", parallel, concurrency()),
    await runGroup("paired group", paired, 2),
    await runGroup("exclusive group", exclusive, 1),
  ];
  return codes.find((c) => c !== 0) ?? 0;
}

if (set === "unit" || set === "db") {
  if (testFiles(set, root).length === 0) {
    console.error(`run-tests: no test files in the ${set} set`);
    process.exit(1);
  }
  const code =
    set === "db"
      ? await withTemplates(runDb)
      : await run([...node, "--input-type=module", "--eval", importing(testFiles(set, root))]);
  reprintFailures();
  process.exit(code);
} else {
  console.error("usage: node --import tsx test/run-tests.ts unit|db [node test options]");
  process.exit(2);
}
