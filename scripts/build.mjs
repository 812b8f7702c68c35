#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm ci` builds): src/ → dist/ as
// JavaScript with declaration files, from a clean dist/.
//
// tsc rewrites the sources' relative `.ts` imports to `.js` in the JavaScript
// (rewriteRelativeImportExtensions) but not in the declaration files, where it
// leaves `from "./x.ts"` (microsoft/TypeScript#61037). TypeScript accepts
// that, but other tools reading the types (editors, type checkers of
// published packages) look for a file that is not shipped, so the
// declarations get the same rewrite here.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import console from "node:console";
import process from "node:process";
import { URL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const built = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
if (built.status !== 0) process.exit(built.status ?? 1);

// Relative specifiers only: `from "./a.ts"`, `import("../b.ts")`.
const RELATIVE_TS = /(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\.ts\2/g;
let rewritten = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const path = join(entry.parentPath, entry.name);
  const text = readFileSync(path, "utf8");
  const next = text.replace(RELATIVE_TS, "$1$2$3.js$2");
  if (next !== text) {
    writeFileSync(path, next);
    rewritten++;
  }
}
console.log(`build: dist/ written; ${rewritten} declaration files' imports rewritten to .js`);

// The Console's pages (React, bundled by Vite) into dist/console-ui; served under /console.
const vitePackage = createRequire(import.meta.url).resolve("vite/package.json");
const vite = join(vitePackage, "..", "bin", "vite.js");
const pages = spawnSync(
  process.execPath,
  [vite, "build", "--config", join(root, "console-ui", "vite.config.ts"), "--logLevel", "warn"],
  { stdio: "inherit", cwd: root },
);
if (pages.status !== 0) process.exit(pages.status ?? 1);
console.log("build: dist/console-ui written (the Console's pages)");

// The employee-termination example's pages are not built here: only that example serves
// them, and its command (examples/employee-termination-app/main.ts, which its browser test
// starts) builds them when they are missing or older than their sources.
