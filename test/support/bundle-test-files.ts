/**
 * The db files as one JavaScript file each (esbuild), for test/run-tests.ts.
 *
 * Why: under `node --import tsx` every module a test process loads goes through
 * tsx's loader hooks, which Node 20 runs on a separate thread, one round trip per
 * file; a db file loads 300–1,000 of them. On a quiet machine (2026-12-06) the
 * order-saga file's process took 4.2 s of CPU under tsx and 3.6 s bundled, and the db
 * set starts 132 such processes. Bundled, a test process loads one file
 * of our code; the npm packages stay imports, loaded as they were.
 *
 * What must not change:
 * - Every module sees the `import.meta.url` of its own source file, as it did under
 *   tsx: tests find the repository root, fixtures and the scripts they hand to child
 *   processes from it, and src/ decides from it whether it runs from the sources
 *   (expression-sandbox.ts forks its `.ts` worker). The plugin below writes each
 *   module's own URL in place of `import.meta.url` as it loads it.
 * - Test processes still run under `--import tsx` (run-tests.ts): what they start or
 *   import by a URL computed at run time (a `.ts` child script, a forked worker) is
 *   TypeScript, loaded as before.
 * - `taskflow` and `taskflow/client` resolve through tsconfig.json's paths to src/, as
 *   tsx resolved them, so a test has one copy of each module, as before.
 */
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/** Where the bundles go (.gitignore), mirroring the files' paths. */
export const BUNDLE_DIR = ".test-build";

const sourceImportMeta: Plugin = {
  name: "source-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.tsx?$/ }, async ({ path }) => {
      const text = await readFile(path, "utf8");
      const contents = text
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(path)))
        .replaceAll("import.meta.filename", JSON.stringify(path));
      return { contents, loader: path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};

/** Bundles `files` (repository-relative `test/….test.ts`); returns the bundles' paths, in order. */
export async function bundleTestFiles(root: string, files: readonly string[]): Promise<string[]> {
  const outdir = join(root, BUNDLE_DIR);
  await rm(outdir, { recursive: true, force: true });
  const out = (file: string) => file.replace(/\.ts$/, "");
  await build({
    entryPoints: files.map((f) => ({ in: join(root, f), out: out(f) })),
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    tsconfig: join(root, "tsconfig.json"),
    sourcemap: "inline",
    plugins: [sourceImportMeta],
    logLevel: "warning",
  });
  return files.map((f) => join(BUNDLE_DIR, `${out(f)}.mjs`));
}
