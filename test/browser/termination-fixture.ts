/**
 * examples/employee-termination-app for one test file, started as its one command
 * starts it (main.ts, what `npm run example:termination` runs): a fresh data
 * directory, free ports, and an API key of the test's choosing, so the test can
 * look for it in everything the browser receives.
 */
import { test as base, expect, type Page } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTsx } from "./tsx-process.ts";

export const TERMINATION_API_KEY = "termination-browser-test-key-5f0c2a9e71d4";

export interface TerminationApp {
  /** The backend, for the browser. */
  url: string;
  /** TaskFlow's private address, as the command printed it. */
  taskflowUrl: string;
  log(): string;
}

export async function startTerminationApp(): Promise<TerminationApp & { stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "tf-termination-"));
  const proc = startTsx(
    ["examples/employee-termination-app/main.ts"],
    {
      ...process.env,
      PORT: "0",
      TASKFLOW_PORT: "0",
      DATA_DIR: dir,
      TASKFLOW_API_KEY: TERMINATION_API_KEY,
    },
    dir,
  );
  const log = proc.log;
  const printed = (label: string) => new RegExp(`${label}: (http://\\S+)`).exec(log())?.[1];
  for (const until = Date.now() + 90_000; printed("app") === undefined;) {
    if (proc.exitCode() !== null) throw new Error(`the app exited ${proc.exitCode()}: ${log()}`);
    if (Date.now() > until) throw new Error(`the app did not start: ${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: printed("app")!,
    taskflowUrl: printed("backend\\)")!,
    log,
    stop: proc.stop,
  };
}

/** Signs `userId` in through the demo picker. */
export async function signIn(page: Page, app: TerminationApp, userId: string): Promise<void> {
  await page.goto(app.url);
  await page.getByLabel("User", { exact: true }).selectOption(userId);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: "Log out" })).toBeVisible();
}

export const test = base.extend<object, { app: TerminationApp }>({
  app: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const app = await startTerminationApp();
      await use(app);
      await app.stop();
    },
    { scope: "worker" },
  ],
});

export { expect };
