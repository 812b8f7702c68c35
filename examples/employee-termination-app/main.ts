/**
 * The one command: `npm run example:termination`.
 *
 * Builds the pages when they are not built yet (or older than their sources),
 * starts TaskFlow on a private port with a SQLite file, starts the backend,
 * and prints the URL to open.
 *
 *   PORT              the backend's port (default 3000; 0: a free one)
 *   HOST              the backend's interface (default 127.0.0.1)
 *   TASKFLOW_PORT     TaskFlow's port on 127.0.0.1 (default 0: a free one)
 *   TASKFLOW_API_KEY  the key between backend and TaskFlow (default: random per start)
 *   DATA_DIR          where taskflow.db lives (default .data/employee-termination-app)
 *   SECURE_COOKIES=1  the session cookie gets Secure (serve it behind HTTPS then)
 *   REBUILD=1         build the pages even when the build looks current
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startApp } from "./server/start-app.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PAGES = join(ROOT, "dist", "employee-termination-app");

function buildPages(): void {
  const vite = join(
    createRequire(import.meta.url).resolve("vite/package.json"),
    "..",
    "bin",
    "vite.js",
  );
  const config = fileURLToPath(new URL("web/vite.config.ts", import.meta.url));
  const r = spawnSync(process.execPath, [vite, "build", "--config", config, "--logLevel", "warn"], {
    stdio: "inherit",
    cwd: ROOT,
  });
  if (r.status !== 0) throw new Error("building the pages failed");
}

/** No build yet, or a source of the pages changed after it (a developer edited them). */
function pagesAreStale(): boolean {
  const built = join(PAGES, "index.html");
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const web = fileURLToPath(new URL("web/", import.meta.url));
  return readdirSync(web, { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > builtAt,
  );
}

const env = process.env;
if (env.REBUILD === "1" || pagesAreStale()) buildPages();
const app = await startApp({
  dataDir: env.DATA_DIR ?? join(ROOT, ".data", "employee-termination-app"),
  pagesDir: PAGES,
  port: Number(env.PORT ?? 3000),
  host: env.HOST ?? "127.0.0.1",
  taskflowPort: Number(env.TASKFLOW_PORT ?? 0),
  taskflowApiKey: env.TASKFLOW_API_KEY,
  secureCookies: env.SECURE_COOKIES === "1",
});
console.log(`TaskFlow (private, key held by the backend): ${app.taskflowUrl}`);
console.log(`Employee termination app: ${app.url}`);

const stop = () => {
  void app.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
