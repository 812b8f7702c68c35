/**
 * `node --import tsx test/run-tests.ts unit|db [node test options]`: runs one
 * test set (test/test-sets.ts) with node's test runner. Behind `npm run
 * test:unit` and `npm run test:db`; options pass through, e.g.
 * `npm run test:db -- --test-name-pattern=sqlite`.
 *
 * - db: `node --test`, one file at a time, each in its own process (they share
 *   databases and ports).
 * - unit: every file loaded into one process, its tests run one after another.
 *   Starting node and tsx once instead of once per file is most of the speed-up
 *   (about 25 s instead of 95 s on a busy 2-core machine); unit tests hold no
 *   shared resource, so they need no process of their own.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { testFiles } from "./test-sets.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const [set, ...options] = process.argv.slice(2);

/**
 * A module that imports every file statically, so all of them are loaded
 * before the first test starts (tests started while later files still load
 * would run on a busy event loop).
 */
const importing = (files: string[]) =>
  files.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};`).join("\n");

if (set === "unit" || set === "db") {
  const files = testFiles(set, root);
  if (files.length === 0) {
    console.error(`run-tests: no test files in the ${set} set`);
    process.exit(1);
  }
  const node = ["--import", "tsx", "--test-reporter=spec", ...options];
  const args =
    set === "db"
      ? [...node, "--test", "--test-concurrency=1", ...files]
      : [...node, "--input-type=module", "--eval", importing(files)];
  const child = spawn(process.execPath, args, { cwd: root, stdio: "inherit" });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  console.error("usage: node --import tsx test/run-tests.ts unit|db [node test options]");
  process.exit(2);
}
