/**
 * The compiled CLI (dist/cli/main.js) for tests that start `taskflow` as a
 * process. Under `node --import tsx src/cli/main.ts` every start compiled the
 * whole source tree (~4-5 s CPU each, over 30 s on a loaded machine); the
 * built CLI starts in ~2.6 s, and the api-keys/cli files start dozens of
 * processes. The built CLI still loads `.ts` workflow modules
 * (src/cli/typescript-loader.ts), as the published package does.
 *
 * A stale dist/ would test old code, so `builtCli` refuses to hand out the
 * path when src/ has a file newer than dist/'s newest; `test/run-tests.ts db`
 * builds first in that case, and a fresh `npm ci` (CI) builds through
 * `prepare`, so it never rebuilds there.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The compiled CLI, absolute, for `spawn(process.execPath, [BUILT_CLI, ...args])`. */
export const BUILT_CLI = join(root, "dist", "cli", "main.js");

/** The newest modification time of any file under `dir` (0 when it is missing). */
export function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** True when dist/ is missing or older than src/: the built CLI would run old code. */
export function builtCliIsStale(projectRoot: string = root): boolean {
  const built = join(projectRoot, "dist", "cli", "main.js");
  if (!existsSync(built)) return true;
  return newestMtime(join(projectRoot, "src")) > newestMtime(join(projectRoot, "dist"));
}

let checked = false;

/** `[BUILT_CLI, ...args]`, after checking once per test process that dist/ is current. */
export function builtCli(args: readonly string[]): string[] {
  if (!checked) {
    if (builtCliIsStale()) {
      throw new Error(
        "dist/ is older than src/ (or missing): run `npm run build` " +
          "(`npm run test:db` does it for you)",
      );
    }
    checked = true;
  }
  return [BUILT_CLI, ...args];
}
