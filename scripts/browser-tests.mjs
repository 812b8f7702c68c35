#!/usr/bin/env node
// `npm run test:browser`: Playwright's runner over test/browser with Debian's Chromium.
// A missing Chromium is an error, never a skip: CI installs it (.ci/run), and a developer
// gets the command that does.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import console from "node:console";
import process from "node:process";
import { URL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.error(
    `test:browser: no Chromium at ${chromium}. Install Debian's (apt-get install -y chromium) ` +
      "or set CHROMIUM_PATH.",
  );
  process.exit(1);
}
if (!existsSync(join(root, "dist", "console-ui", "index.html"))) {
  console.error(
    "test:browser: the Console's pages are not built; run npm run build (npm ci does).",
  );
  process.exit(1);
}
const cli = join(
  createRequire(import.meta.url).resolve("@playwright/test/package.json"),
  "..",
  "cli.js",
);
const run = spawnSync(
  process.execPath,
  [
    cli,
    "test",
    "-c",
    join(root, "test", "browser", "playwright.config.ts"),
    ...process.argv.slice(2),
  ],
  { stdio: "inherit", cwd: root },
);
process.exit(run.status ?? 1);
