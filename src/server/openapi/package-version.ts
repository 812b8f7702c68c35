/**
 * The version of the taskflow package this server runs from, for the OpenAPI
 * document. The server runs from src/ (tsx) or dist/ (built, or installed under
 * node_modules/taskflow), so package.json is found by walking up from this
 * module to the first package.json named "taskflow". Read when the server is
 * built, not when this module is imported.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const UNKNOWN_VERSION = "0.0.0-unknown";

export function packageVersion(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const pkg = readPackage(join(dir, "package.json"));
    if (pkg?.name === "taskflow" && typeof pkg.version === "string") return pkg.version;
    const parent = dirname(dir);
    if (parent === dir) return UNKNOWN_VERSION;
    dir = parent;
  }
}

function readPackage(path: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
