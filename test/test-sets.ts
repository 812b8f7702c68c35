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
