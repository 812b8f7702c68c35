/**
 * One way to handle database differences: code branches on a dialect's
 * capability flags (src/adapters/store/dialects/store-dialect.ts), and only
 * the dialect folder turns a backend's name into them. This reads every
 * source file outside that folder and fails on a branch on a backend's name:
 * a comparison with it (`backend === "postgres"`, `"mysql" !== kind`), a
 * `case "sqlite":`, an `includes` over a list of names, or a table keyed by
 * them (`{ postgres: …, mysql: … }`, `Record<"postgres" | …>`). Comments may
 * name backends freely; they are not read.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));
/** The one folder allowed to decide by name. */
const DIALECTS = "src/adapters/store/dialects/";

const NAME = String.raw`(?:postgres|postgresql|pg|mysql|mariadb|sqlite|sqlite3)`;
const Q = String.raw`["'\x60]`;
const QUOTED = `${Q}${NAME}${Q}`;

/** What a branch on a backend's name looks like, one pattern per spelling. */
const BRANCHES: readonly { what: string; pattern: RegExp }[] = [
  { what: "compared with a name", pattern: new RegExp(String.raw`[!=]==?\s*${QUOTED}`) },
  { what: "a name compared", pattern: new RegExp(String.raw`${QUOTED}\s*[!=]==?`) },
  { what: "a case of a name", pattern: new RegExp(String.raw`\bcase\s+${QUOTED}\s*:`) },
  {
    what: "a list of names searched",
    pattern: new RegExp(String.raw`\[[^\]]*${QUOTED}[^\]]*\]\s*\.\s*includes\s*\(`),
  },
  {
    what: "a table keyed by name",
    // A key, not a URL's scheme (`postgres://…` at the start of a continued string).
    pattern: new RegExp(String.raw`^\s*${Q}?${NAME}${Q}?\s*:(?!/)\s*\S`),
  },
  { what: "a record keyed by name", pattern: new RegExp(String.raw`Record<\s*${QUOTED}`) },
];

/** The text without its comments (strings are kept: a name is found in them). */
function code(text: string): string[] {
  const withoutBlocks = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "));
  // A `//` after a quote or a colon is part of a string or URL (`"postgres://…"`), not a comment.
  return withoutBlocks.split("\n").map((line) => line.replace(/(^|[^:"'\x60\\])\/\/.*$/, "$1"));
}

/** Every branch on a backend's name in `text`, as `line: source`. */
function nameBranches(text: string): string[] {
  const found: string[] = [];
  code(text).forEach((line, i) => {
    for (const { what, pattern } of BRANCHES) {
      if (pattern.test(line)) {
        found.push(`${i + 1}: ${line.trim()} (${what})`);
        return;
      }
    }
  });
  return found;
}

function sourceFiles(): string[] {
  return readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
    .map((p) => `src/${p.split("\\").join("/")}`)
    .filter((p) => /\.(ts|tsx|mts|cts)$/.test(p) && !p.startsWith(DIALECTS))
    .sort();
}

test("the matcher finds each spelling of a branch on a backend's name, and only in code", () => {
  const planted = [
    `if (ctx.backend === "postgres") return;`,
    `const x = "mysql" !== kind ? 1 : 2;`,
    `if (d.name == 'sqlite') {}`,
    "  case `mariadb`:",
    `if (["postgres", "mysql"].includes(backend)) {}`,
    `  postgres: statementFor(1),`,
    `const T: Record<"postgres" | "mysql", string> = x;`,
  ];
  for (const line of planted) {
    assert.equal(nameBranches(line).length, 1, `found: ${line}`);
  }
  const innocent = [
    `// on PostgreSQL, backend === "postgres" is how it was`,
    `/* case "mysql": */ const a = 1;`,
    `const url = "postgres://u@h/db"; // a URL, not a branch`,
    "  `postgres://…, mysql://… or mariadb://…)`,",
    `const client = new pg.Client({ application_name: "taskflow-locks" });`,
    `const postgresql = 1;`,
    `if (d.lateStatistics) start();`,
  ];
  for (const line of innocent) assert.deepEqual(nameBranches(line), [], line);
});

test("no code outside the dialect folder branches on a backend's name", () => {
  const files = sourceFiles();
  assert.ok(files.length > 100, `read the whole of src/ (${files.length} files)`);
  const found = files.flatMap((f) =>
    nameBranches(readFileSync(join(root, f), "utf8")).map((hit) => `${f}:${hit}`),
  );
  assert.deepEqual(found, [], "branch on the dialect's capability flags (store-dialect.ts)");
});
