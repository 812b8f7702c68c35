/**
 * The published types show the API and nothing under it (issue 22, item 1).
 * A walk of the declaration graph from each entry the package exports
 * (package.json "exports": `.` and `./client`) over the build in dist/
 * must reach no declaration file under adapters/ and name none of the
 * libraries the adapters and the server are built on. A consumer's compiler
 * loads every file of that graph: an adapter's type there is API by accident
 * (it cannot change without breaking someone), and a library's type there
 * makes the consumer install and type-check that library's types too.
 */
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { walkDeclarations } from "./declaration-graph.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dist = join(root, "dist");

/** The libraries behind the adapters and the server; `@fastify/*` and `pino-*` included. */
const IMPLEMENTATION = [/^kysely$/, /^fastify/, /^@fastify\//, /^ioredis$/, /^pino/, /^pg$/];
const DRIVERS = [/^pg-/, /^mysql2$/, /^better-sqlite3$/, /^@types\/(pg|better-sqlite3)$/];
const isImplementation = (name: string) =>
  [...IMPLEMENTATION, ...DRIVERS].some((pattern) => pattern.test(name));

function assertBuildIsFresh() {
  const built = statSync(join(dist, "index.d.ts"), { throwIfNoEntry: false });
  assert.ok(built, "dist/ is missing: npm ci builds it (or npm run build)");
  for (const f of readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })) {
    if (!f.endsWith(".ts")) continue;
    const changed = statSync(join(root, "src", f)).mtimeMs;
    assert.ok(changed <= built.mtimeMs, `src/${f} is newer than dist/: run npm run build`);
  }
}

for (const entry of ["index.d.ts", "client/index.d.ts"]) {
  test(`dist/${entry} reaches no adapter declaration and no Kysely, Fastify, ioredis, pino or driver type`, (t) => {
    assertBuildIsFresh();
    const graph = walkDeclarations(join(dist, entry), dist);
    t.diagnostic(`dist/${entry} reaches ${graph.files.length} declaration files`);
    const adapters = graph.files.filter((f) => f.split("/").includes("adapters"));
    const libraries = [...graph.packages]
      .filter(([name]) => isImplementation(name))
      .map(([name, from]) => `${name} (from ${[...new Set(from)].join(", ")})`);
    assert.deepEqual(
      { adapters, libraries },
      { adapters: [], libraries: [] },
      `dist/${entry} leaks`,
    );
  });
}
