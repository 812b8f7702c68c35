/**
 * Browser tests: Playwright's runner driving Debian's Chromium (/usr/bin/chromium; its
 * own browser download is not reachable from these machines). `npm run test:browser`.
 * Each test file starts its own TaskFlow with the Console on a fresh SQLite file
 * (console-fixture.ts), so files run side by side without sharing data.
 */
import { defineConfig } from "@playwright/test";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: ".",
  testMatch: "**/*.spec.ts",
  outputDir: "../../test-results/browser",
  // Two cores: two browsers and their servers at a time (TF_BROWSER_WORKERS to try others).
  workers: Number(process.env.TF_BROWSER_WORKERS ?? 2),
  fullyParallel: false,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  retries: 0,
  reporter: process.env.CI === "true" ? [["list"]] : [["list"]],
  use: {
    browserName: "chromium",
    headless: true,
    launchOptions: {
      executablePath: CHROMIUM,
      // Without the networking flags Chromium reaches for Google's hosts at every start,
      // which this machine's closed network refuses; no sandbox because CI runs as root.
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-gpu-compositing",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
      ],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
