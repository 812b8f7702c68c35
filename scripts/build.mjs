#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm ci` builds): src/ → dist/, from a clean dist/.
// Three jobs, side by side (two cores; each waits on the others' I/O at times):
//
// - The JavaScript: esbuild bundles the package's entry points (package.json "exports"
//   and "bin", plus the expression sandbox's child process) with code splitting, the
//   npm dependencies left as imports. A process that starts `taskflow` loads a few dozen
//   files instead of ~320 of our own (tsx's loader thread, registered for a TypeScript
//   workflow module, then sees few imports). Measured on PostgreSQL, interleaved on a quiet
//   machine (2026-12-06): a worker start with a .ts module 2.5–2.7 → 2.2–2.4 s of CPU, with
//   a .js one 1.4–1.5 → 1.1–1.2 s; `taskflow serve` 2.1–2.35 → 1.9–1.95 s.
//   Every entry and chunk is in dist/ itself, so a module that finds a file beside it
//   (import.meta.url: the Console's pages, the expression worker) finds it from any chunk;
//   dist/cli/main.js and dist/client/index.js are one-line files that import theirs.
//   Shared modules are shared chunks, so the CLI and a workflow module's
//   `import … from "taskflow"` use one copy of every registry.
// - The declarations: tsc emits only .d.ts (and their maps) for the published types.
//   tsc rewrites the sources' relative `.ts` imports to `.js` in JavaScript
//   (rewriteRelativeImportExtensions) but not in declaration files, where it leaves
//   `from "./x.ts"` (microsoft/TypeScript#61037). TypeScript accepts that, but other tools
//   reading the types (editors, type checkers of published packages) look for a file that
//   is not shipped, so the declarations get the same rewrite here.
// - The Console's pages (React, bundled by Vite) into dist/console-ui; served under /console.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import console from "node:console";
import process from "node:process";
import { URL } from "node:url";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const require = createRequire(import.meta.url);

/**
 * Runs node with `args`; resolves with its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
const node = (args) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit", cwd: root });
    child.on("close", (code) => resolve(code ?? 1));
  });

/** The bundle's entry points: the name in dist/ → the source. */
const ENTRIES = {
  index: "src/index.ts",
  "client-entry": "src/client/index.ts",
  "cli-entry": "src/cli/main.ts",
  // Forked by src/engine/definitions/expression-sandbox.ts from the file beside it.
  "expression-worker": "src/engine/definitions/expression-worker.ts",
};

/** The paths package.json names, each a line that imports its entry. */
const FORWARDERS = {
  "cli/main.js": 'import "../cli-entry.js";\n',
  "client/index.js": 'export * from "../client-entry.js";\n',
};

async function javascript() {
  await build({
    entryPoints: Object.entries(ENTRIES).map(([out, source]) => ({ in: join(root, source), out })),
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
  });
  for (const [path, text] of Object.entries(FORWARDERS)) {
    mkdirSync(join(dist, path, ".."), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return 0;
}

async function declarations() {
  const tsc = require.resolve("typescript/bin/tsc");
  const code = await node([tsc, "-p", join(root, "tsconfig.build.json")]);
  if (code !== 0) return code;
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
  console.log(`build: declarations written; ${rewritten} files' imports rewritten to .js`);
  return 0;
}

function pages() {
  const vite = join(require.resolve("vite/package.json"), "..", "bin", "vite.js");
  const config = join(root, "console-ui", "vite.config.ts");
  return node([vite, "build", "--config", config, "--logLevel", "warn"]);
}

const codes = await Promise.all([
  javascript().catch((e) => {
    console.error(e);
    return 1;
  }),
  declarations(),
  pages(),
]);
if (codes.some((c) => c !== 0)) process.exit(1);
console.log("build: dist/ written (the bundle, the declarations and the Console's pages)");

// The employee-termination example's pages are not built here: only that example serves
// them, and its command (examples/employee-termination-app/main.ts, which its browser test
// starts) builds them when they are missing or older than their sources.
