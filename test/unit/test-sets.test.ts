/**
 * The split into `npm run test:unit` and `npm run test:db` (test/test-sets.ts)
 * drops no file, and the unit set stays free of databases and processes.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  allTestFiles,
  DB_EXCLUSIVE,
  DB_LONGEST_FIRST,
  DB_PAIRED,
  dbExclusiveFiles,
  dbPairedFiles,
  dbParallelFiles,
  testFiles,
} from "../test-sets.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** This file: it names what it looks for. */
const SELF = "test/unit/test-sets.test.ts";

test("every test file under test/ is in exactly one of the unit and db sets", () => {
  // Found here independently of test-sets.ts: any file whose name ends in .test.ts.
  const onDisk = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
    .filter((p) => p.endsWith(".test.ts"))
    .map((p) => `test/${p.split("\\").join("/")}`)
    .sort();
  const unit = testFiles("unit", root);
  const db = testFiles("db", root);
  assert.ok(unit.length > 0 && db.length > 0, "both sets have files");
  assert.deepEqual(allTestFiles(root), onDisk);
  assert.deepEqual([...unit, ...db].sort(), onDisk, "the two sets together are every file");
  assert.deepEqual(
    unit.filter((f) => db.includes(f)),
    [],
    "no file is in both sets",
  );
  assert.ok(unit.every((f) => f.startsWith("test/unit/")));
  assert.ok(db.every((f) => !f.startsWith("test/unit/")));
});

test("every file of the paired and exclusive db groups exists, is a db file and is listed once", () => {
  const db = testFiles("db", root);
  const listed = [...DB_EXCLUSIVE, ...DB_PAIRED];
  // A renamed or deleted file would otherwise silently drop out of its group and run in parallel.
  assert.deepEqual(
    listed.filter((f) => !db.includes(f)),
    [],
    "listed in DB_EXCLUSIVE or DB_PAIRED but not a db test file on disk",
  );
  assert.equal(new Set(listed).size, listed.length, "a file is listed twice");
});

test("the db set is the parallel, paired and exclusive groups, each file in one", () => {
  const parallel = dbParallelFiles(root);
  const paired = dbPairedFiles(root);
  const exclusive = dbExclusiveFiles(root);
  assert.ok(parallel.length > 0 && paired.length > 0 && exclusive.length > 0, "all have files");
  assert.deepEqual([...parallel, ...paired, ...exclusive].sort(), testFiles("db", root));
  const all = [...parallel, ...paired, ...exclusive];
  assert.equal(new Set(all).size, all.length, "no file is in two groups");
  assert.deepEqual([...exclusive].sort(), [...DB_EXCLUSIVE].sort());
  assert.deepEqual([...paired].sort(), [...DB_PAIRED].sort());
});

test("the parallel group starts with DB_LONGEST_FIRST, each of them a parallel file", () => {
  const parallel = dbParallelFiles(root);
  // A renamed file would otherwise silently lose its early start.
  assert.deepEqual(parallel.slice(0, DB_LONGEST_FIRST.length), [...DB_LONGEST_FIRST]);
  assert.deepEqual(
    parallel.slice(DB_LONGEST_FIRST.length),
    parallel.slice(DB_LONGEST_FIRST.length).sort(),
    "the rest in the set's order",
  );
});

/**
 * What a unit test must not reach, directly or through a test helper: a store
 * or the composition root (they open databases), a driver, a test database, a
 * child process. A guard for the common ways in, not a proof.
 */
const OPENS_A_DATABASE_OR_PROCESS = [
  /^(node:)?child_process$/,
  /^(better-sqlite3|pg|mysql2(\/.*)?|kysely)$/,
  /\/adapters\/store\/(create-store|sql-store|dialects\/)/,
  /\/create-(taskflow|durable)\.ts$/,
  /\/cli\//,
  /\/examples\//,
  /\/test\/support\/(backends|server-process|db-snapshot|steady-load|hammer)\.ts$/,
];

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)].map((m) => m[1]!);
}

test("unit tests import nothing that opens a database or starts a process", () => {
  const problems: string[] = [];
  for (const file of testFiles("unit", root)) {
    // Follow relative imports through test helpers (not into src: src is checked by name).
    const seen = new Set<string>();
    const queue = [file];
    while (queue.length > 0) {
      const at = queue.pop()!;
      if (seen.has(at)) continue;
      seen.add(at);
      for (const spec of importsOf(at)) {
        const resolved = spec.startsWith(".") ? normalize(join(dirname(at), spec)) : spec;
        const name = spec.startsWith(".") ? `/${resolved}` : spec;
        if (OPENS_A_DATABASE_OR_PROCESS.some((re) => re.test(name))) {
          problems.push(`${file}${at === file ? "" : ` (through ${at})`} imports ${spec}`);
        } else if (resolved.startsWith("test/") && resolved.endsWith(".ts")) {
          queue.push(resolved);
        }
      }
    }
    const text = readFileSync(join(root, file), "utf8");
    if (
      file !== SELF &&
      /createTestDatabase|createStore\(|createTaskflow\(|new Database\(/.test(text)
    ) {
      problems.push(`${file} opens a database`);
    }
  }
  assert.deepEqual(problems, [], "move these to a db test (outside test/unit/)");
});
